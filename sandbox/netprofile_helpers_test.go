package sandbox

import (
	"testing"

	"turnstile/domain"
)

// domainsProfile compiles a profile extending the workspace built-in with
// the network on and domains as its rules (none: an open network), and
// resolves its snapshot for a temporary workspace: the profile's own
// decision (cp.Network.DecideURL) and what enforcement reads (s).
func domainsProfile(t *testing.T, domains map[string]domain.DomainAccess) (cp *domain.CompiledProfile, s *domain.TurnExecutionSecuritySnapshot) {
	t.Helper()
	ws := t.TempDir()
	on := true
	set := domain.ProfileSet{"p": {Name: "p", Extends: domain.BuiltinWorkspace,
		Network: domain.ProfileNetwork{Enabled: &on, Domains: domains}}}
	cp, err := domain.CompileProfile(set, "p", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws})
	if err != nil {
		t.Fatal(err)
	}
	return cp, &snap
}

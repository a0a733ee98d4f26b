package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack66MissingProjectRootSetAside — severity: low (false deny: an
// honest command's work is moved aside).
//
// Honest action: the turn names a project root that does not exist yet
// (ProjectRoots: ws/pkg, the package the agent is asked to create), inside
// the writable workspace. The command makes it and writes source there:
// `mkdir -p pkg/src && echo x > pkg/src/m`. The reserved names of pkg hold
// nothing (firstMissing, sandbox/canon.go, stops at the name's own
// directory, a root that does not exist yet: right). But the check after
// the command (newPlantCheck / setAsideMade, sandbox/plantcheck.go)
// watches each protected path of pkg (pkg/.bashrc, pkg/.vscode …) by its
// first missing component within the outer root ws, which is pkg itself:
// pkg now exists, so the whole new project root, with the command's
// source, is renamed pkg.turnstile-untrusted ("a protected path the
// command created").
//
// Fix: for a protected path that belongs to a root (its entry derived
// from the root pkg), stop the first-missing walk at that root (watch
// pkg/.bashrc itself once pkg exists), never at a directory above the
// root; or drop the protected entries of a root that does not exist from
// the outer root's watch list.
//
// Control: the same command with pkg existing keeps its work.
func TestAttack66MissingProjectRootSetAside(t *testing.T) {
	f := requireKernel(t, true)
	snap := func(ws string) *domain.TurnExecutionSecuritySnapshot {
		s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
			Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
			Cwd:     ws, WorkspaceRoot: ws, ProjectRoots: []string{ws + "/pkg"}, Kernel: f.Kernel,
		})
		if err != nil {
			t.Fatal(err)
		}
		return &s
	}
	honest := `mkdir -p pkg/src && echo x > pkg/src/m && echo WROTE`

	ctl := tempWorkspace(t)
	mustDo(t, os.Mkdir(ctl+"/pkg", 0o755))
	r := sh(t, snap(ctl), honest)
	if !strings.Contains(string(r.Stdout), "WROTE") || !exists(ctl+"/pkg/src/m") || len(r.Quarantined) != 0 {
		t.Fatalf("control: an existing project root keeps the command's work: %s %s %+v", r.Stdout, r.Stderr, r.Quarantined)
	}

	ws := tempWorkspace(t)
	r = sh(t, snap(ws), honest)
	if !strings.Contains(string(r.Stdout), "WROTE") || !exists(ws+"/pkg/src/m") {
		t.Errorf("a project root made by the command (it did not exist yet) was set aside with its source: %s %s %+v", r.Stdout, r.Stderr, r.Quarantined)
	}
}

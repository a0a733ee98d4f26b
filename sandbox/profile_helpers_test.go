package sandbox

import (
	"testing"

	"turnstile/domain"
)

// profileSnapshot is the snapshot of a permission profile extending
// :workspace with the filesystem entries fs (paths and globs), for a turn
// rooted at ws.
func profileSnapshot(t *testing.T, ws string, fs map[string]domain.Access, appRead ...string) domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	set := domain.ProfileSet{"p": {Name: "p", Extends: domain.BuiltinWorkspace, Filesystem: fs}}
	cp, err := domain.CompileProfile(set, "p", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead, Kernel: machine().Kernel})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// execProfileSnapshot is profileSnapshot for a turn whose commands are the
// test binary's (its directory an app read root).
func execProfileSnapshot(t *testing.T, ws string, fs map[string]domain.Access) domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	return profileSnapshot(t, ws, fs, filepathDir(testExe(t)))
}

// decideChecked classifies inv against s as the engine's resource check
// does: path arguments resolved and checked, listings checked.
func decideChecked(s *domain.TurnExecutionSecuritySnapshot, inv domain.Invocation) error {
	_, err := domain.ClassifyChecked(inv, s.Sandbox.Cwd, nil,
		func(p string, op domain.Access, tree bool) (string, error) {
			return DecisionChecker{}.ResolveFile(s, p, op, tree)
		},
		func(p string, depth int) error { return DecisionChecker{}.CheckListing(s, p, depth) })
	return err
}

package domain

import "testing"

// TestAttack165_TopLevelRootAtProtectedItem (review 165): the protected list
// (shell start-up files, tool settings, .git, .vscode, .devcontainer…) is
// placed inside each writable root and at the cwd (protectedEntries), never
// at a root's ancestors. Under the operator's allowed_roots (which the
// README says makes roots-relative keys hold "as if the turn were rooted at
// each directory between the allowed root a root lies in and the root"),
// the runtime starts a turn rooted AT a project's protected item or below
// it (/work/repo/.vscode, /work/repo/.devcontainer/sub): both lie in the
// allowed root, and the settings VS Code runs (.vscode/tasks.json with
// runOn folderOpen, .devcontainer/sub/devcontainer.json's
// initializeCommand) are writable by kernel and by decision.
//
// Control: the same turn rooted at the project keeps them read-only, and a
// turn rooted at /work/repo/src writes there.
func TestAttack165_TopLevelRootAtProtectedItem(t *testing.T) {
	cat := &ProfileCatalog{Home: "/home/u", Constraints: &Constraints{AllowedRoots: []string{"/work"}}}
	at := func(root, file string) Access {
		t.Helper()
		in := goldenInputs(ModeAutoAcceptEdits)
		in.Profile = TurnPermissionProfileSnapshot{}
		in.WorkspaceRoot, in.Cwd, in.ProjectRoots, in.AppReadRoots = root, root, nil, nil
		s, err := SelectSnapshot(&ProfileRequest{Mode: ModeAutoAcceptEdits}, cat, SourceComposer, in)
		if err != nil {
			t.Logf("root %s refused (fixed?): %v", root, err)
			return AccessDeny
		}
		return AccessAt(&s.Sandbox.Filesystem, file)
	}
	if a := at("/work/repo/src", "/work/repo/src/x.go"); a != AccessWrite {
		t.Fatalf("control: a turn rooted at /work/repo/src gets %s there", a)
	}
	for _, tc := range []struct{ root, file string }{
		{"/work/repo/.vscode", "/work/repo/.vscode/tasks.json"},
		{"/work/repo/.devcontainer/sub", "/work/repo/.devcontainer/sub/devcontainer.json"},
	} {
		if a := at("/work/repo", tc.file); a == AccessWrite {
			t.Fatalf("control: a turn rooted at /work/repo writes %s", tc.file)
		}
		if a := at(tc.root, tc.file); a == AccessWrite {
			t.Errorf("a turn rooted at %s (inside allowed_roots /work) gets kernel write at %s, which a turn rooted at the project keeps read-only", tc.root, tc.file)
		}
	}
}

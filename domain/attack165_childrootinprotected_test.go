package domain

import "testing"

// TestAttack165_ChildRootInsideReadSubtree (review 165): a child turn's
// snapshot is requested ∩ task cap ∩ parent (REFERENCE §6), and the
// kernel plan follows the snapshot's entries (AccessAt). IntersectFilesystem
// pairs each root of the child with each root of the parent and keeps the
// narrower path with the weaker access; the parent's protected items are
// kept as carve-outs only where normalizeEntries finds them INSIDE a
// writable root. A child whose workspace_root lies strictly below one of
// the parent's read-only paths — a protected item (.devcontainer, .vscode,
// .git of a nested repository…) or a profile's "read" subtree of a
// writable root — pairs with the parent's enclosing writable root (its
// workspace) and gets write there; the parent's read-only entry lies above
// the child's root, is not "inside a writable root", and is dropped. The
// child's decisions keep the parent's rules (read), so the snapshot's
// kernel grants write where its own decision says read, and kernelGaps
// does not notice (it probes only at the rules' own paths), so no
// degradation is recorded.
//
// The runtime chooses the child's roots (POST /v1/turns with parent_turn_id
// and workspace_root) and runs commands there (POST /v1/turns/{id}/exec):
// the command writes the person's dev-container definition (which VS Code
// runs on "Reopen in Container": postCreateCommand), or a read-only path
// of the operator's profile.
func TestAttack165_ChildRootInsideReadSubtree(t *testing.T) {
	in := goldenInputs(ModeAutoAcceptEdits) // root /work/repo, cwd /work/repo/service
	in.Profile = TurnPermissionProfileSnapshot{}
	cat := &ProfileCatalog{Home: "/home/u", Profiles: ProfileSet{"dev": {Name: "dev", Extends: BuiltinWorkspace,
		Filesystem: map[string]Access{"/work/repo/docs": AccessRead}}}}
	parent, err := SelectSnapshot(&ProfileRequest{Profile: "dev"}, cat, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	child := func(root string) TurnExecutionSecuritySnapshot {
		t.Helper()
		c, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p165", Inputs: SnapshotInputs{WorkspaceRoot: root, Cwd: root}})
		if err != nil {
			t.Fatalf("child with root %s: %v", root, err)
		}
		return c
	}
	// Control: a child rooted in a writable part of the parent's root
	// writes there, by decision and by kernel (the mechanism works).
	ok := child("/work/repo/src")
	if k, d := AccessAt(&ok.Sandbox.Filesystem, "/work/repo/src/x.go"), ResolvePathRules(ok.Sandbox.Filesystem.Rules, "/work/repo/src/x.go").Access; k != AccessWrite || d != AccessWrite {
		t.Fatalf("control: a child rooted at /work/repo/src: kernel %s, decision %s at /work/repo/src/x.go; want write, write", k, d)
	}
	for _, tc := range []struct{ root, file string }{
		{"/work/repo/.devcontainer/sub", "/work/repo/.devcontainer/sub/devcontainer.json"}, // a protected item
		{"/work/repo/.vscode/x", "/work/repo/.vscode/x/tasks.json"},                        // a protected item
		{"/work/repo/docs/sub", "/work/repo/docs/sub/index.md"},                            // the profile's "read" subtree
	} {
		// Control: the parent may not write there, by kernel or decision.
		if k, d := AccessAt(&parent.Sandbox.Filesystem, tc.file), ResolvePathRules(parent.Sandbox.Filesystem.Rules, tc.file).Access; k == AccessWrite || d == AccessWrite {
			t.Fatalf("control: the parent itself may write %s (kernel %s, decision %s)", tc.file, k, d)
		}
		c := child(tc.root)
		k, d := AccessAt(&c.Sandbox.Filesystem, tc.file), ResolvePathRules(c.Sandbox.Filesystem.Rules, tc.file).Access
		if k.rank() > AccessAt(&parent.Sandbox.Filesystem, tc.file).rank() {
			t.Errorf("a child rooted at %s (inside the parent's read-only %s) gets kernel %s at %s where its parent's kernel gives %s (the child's decision says %s; degradations %v): its commands write what the parent and its own decision keep read-only",
				tc.root, tc.root[:len(tc.root)-len("/"+lastComp(tc.root))], k, tc.file, AccessAt(&parent.Sandbox.Filesystem, tc.file), d, c.Enforcement.Degradations)
		}
	}
}

func lastComp(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// TestAttack165_ChildRootInsideProtectedModeParent: the same with a parent
// that selected a mode (auto_accept_edits, no profile: the common case).
// A child rooted at .devcontainer/sub gets write there: VS Code and the
// devcontainer CLI read .devcontainer/<folder>/devcontainer.json as a
// configuration, whose initializeCommand runs on the person's host.
// Control: the parent's kernel and a child rooted in src/.
func TestAttack165_ChildRootInsideProtectedModeParent(t *testing.T) {
	parent, err := ResolveSnapshot(goldenInputs(ModeAutoAcceptEdits))
	if err != nil {
		t.Fatal(err)
	}
	ok, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p165", Inputs: SnapshotInputs{WorkspaceRoot: "/work/repo/src", Cwd: "/work/repo/src"}})
	if err != nil || AccessAt(&ok.Sandbox.Filesystem, "/work/repo/src/x.go") != AccessWrite {
		t.Fatalf("control: a child rooted at /work/repo/src cannot write there: %v", err)
	}
	file := "/work/repo/.devcontainer/sub/devcontainer.json"
	if AccessAt(&parent.Sandbox.Filesystem, file) == AccessWrite {
		t.Fatalf("control: the parent's kernel writes %s", file)
	}
	c, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p165", Inputs: SnapshotInputs{WorkspaceRoot: "/work/repo/.devcontainer/sub", Cwd: "/work/repo/.devcontainer/sub"}})
	if err != nil {
		t.Logf("refused (fixed?): %v", err)
		return
	}
	if k := AccessAt(&c.Sandbox.Filesystem, file); k == AccessWrite {
		t.Errorf("a child of an auto_accept_edits turn rooted at /work/repo/.devcontainer/sub gets kernel %s at %s (its parent: %s): the protected .devcontainer above the child's root is dropped (normalizeEntries keeps a protected item only inside a writable root)",
			k, file, AccessAt(&parent.Sandbox.Filesystem, file))
	}
}

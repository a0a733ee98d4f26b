package domain

import "testing"

// TestAttack116_ChildRelativeRootsUnbound (hundred-and-sixteenth review):
// ResolveChildSnapshot binds a child's roots where its parent's roots led
// (BoundWithin(RootLinksOf(parent), roots...)), over the links the engine
// found at the child's start (checkRoots: where each root leads now). It
// hands BoundWithin the roots as the request wrote them; a relative one
// (resolved against the cwd only later, by resolveRoots) is taken as
// relative to "/" by CleanPath and lies in none of the parent's roots, so
// the child's root keeps the link the engine found now: after a directory
// in the parent's root was swapped for a link, where the link leads.
//
// Control: the same roots written absolute are bound where the parent's
// root led.
func TestAttack116_ChildRelativeRootsUnbound(t *testing.T) {
	attack116ChildRoots(t, true)
}

// TestAttack116_ChildRelativeRootsUnboundControl: the same roots written
// absolute are bound where the parent's root led (passes).
func TestAttack116_ChildRelativeRootsUnboundControl(t *testing.T) {
	attack116ChildRoots(t, false)
}

func attack116ChildRoots(t *testing.T, relative bool) {
	const ws, elsewhere = "/work/repo", "/elsewhere"
	parent, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: ModeAutoAcceptEdits}, SourceComposer),
		Cwd: ws, WorkspaceRoot: ws, Kernel: attack114Kernel})
	if err != nil {
		t.Fatal(err)
	}
	BindRootLinks(&parent, map[string]string{ws: ws}) // as SelectSnapshot binds a started turn
	// What checkRoots records for the child after ws/sub and ws/lib were
	// swapped for links to elsewhere.
	now := map[string]string{ws + "/sub": elsewhere, ws + "/lib": elsewhere + "/lib"}
	ledTo := func(in SnapshotInputs) map[PathKind]string {
		t.Helper()
		in.RootLinks = now
		c, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p", Inputs: in})
		if err != nil {
			t.Fatal(err)
		}
		out := map[PathKind]string{}
		for _, e := range c.Sandbox.Filesystem.Entries {
			switch e.Kind {
			case PathWorkspaceRoot, PathProjectRoot:
				if e.Access == AccessWrite {
					out[e.Kind] = e.ResolvedPath + " -> " + e.LedTo
				}
			}
		}
		return out
	}
	want := map[PathKind]string{PathWorkspaceRoot: ws + "/sub -> " + ws + "/sub", PathProjectRoot: ws + "/lib -> " + ws + "/lib"}
	abs := ledTo(SnapshotInputs{Cwd: ws, WorkspaceRoot: ws + "/sub", ProjectRoots: []string{ws + "/lib"}})
	for k, w := range want {
		if abs[k] != w {
			t.Fatalf("control: the child's absolute %s is %q, want %q", k, abs[k], w)
		}
	}
	if !relative {
		return
	}
	rel := ledTo(SnapshotInputs{Cwd: ws, WorkspaceRoot: "sub", ProjectRoots: []string{"lib"}})
	for k, w := range want {
		if rel[k] != w {
			t.Errorf("the child's %s written relative to its cwd is %q (bound where the link leads now), want %q (where the parent's root led)", k, rel[k], w)
		}
	}
}

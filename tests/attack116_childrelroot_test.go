package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack116_ChildRelativeRootUnbound (hundred-and-sixteenth review): a
// child turn's roots are bound where its parent's roots led
// (ResolveChildSnapshot: BoundWithin(RootLinksOf(parent), roots...)), over
// the links the child's own start found (checkRoots: where each root leads
// NOW), so that a directory in the parent's root swapped for a link takes
// no child root with it (the hundred-and-fourteenth review). BoundWithin is
// handed the child's roots as written: a relative workspace_root ("sub",
// resolved against the absolute cwd only later, resolveRoots) is CleanPath'd
// to "/sub", which lies in none of the parent's roots, so the parent's
// binding is never applied to it. The child's root is then bound where
// checkRoots found it leads when the child starts: where the link leads.
//
// The agent swaps sub, a directory of its own writable root, for a link
// to a directory outside every root (a command of the parent could do it;
// the test does it on disk), then, with the runtime's credential, starts a
// child with cwd the parent's root and workspace_root "sub": the child may
// write outside its parent's root, by decision and by command.
//
// Controls: the parent's write through the link is refused; a child
// naming the same root absolute (cwd the same) is refused the same write.
func TestAttack116_ChildRelativeRootUnbound(t *testing.T) {
	attack116ChildRelativeRoot(t, true)
}

// TestAttack116_ChildRelativeRootUnboundControl: the same setup with the
// child's root written absolute (and the parent itself) is refused the
// write through the swapped directory, by decision and by command (passes).
func TestAttack116_ChildRelativeRootUnboundControl(t *testing.T) {
	attack116ChildRelativeRoot(t, false)
}

func attack116ChildRelativeRoot(t *testing.T, relative bool) {
	t.Parallel()
	s := StartServer(t, "")
	rt := roAs(s, roCreate(t, s, "agent116", "runtime", "ws"))
	base := workspace(t)
	ws, outside := filepath.Join(base, "x"), filepath.Join(base, "elsewhere")
	sub := filepath.Join(ws, "sub")
	makeFiles(t, "mine\n", filepath.Join(sub, "a.txt"), filepath.Join(outside, "b.txt"))
	rt.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p116", "workspace_id": "ws", "thread_id": "thread-p116",
		"workspace_root": ws, "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, 201, nil)
	if d := rt.decide("p116", "p0", "apply_patch", patch(filepath.Join(sub, "a.txt"))); d.Decision != "allow" {
		t.Fatalf("setup: the parent's write in its root: %+v", d)
	}
	// The swap, inside the parent's writable root.
	if err := os.Rename(sub, sub+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, sub); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "b.txt")
	// Control: the parent is bound where its root led.
	if d := rt.decide("p116", "p1", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Fatalf("control: after the swap the parent's write to %s is allowed: %+v", target, d)
	}
	// Control: a child naming the root absolute is bound where the
	// parent's root led.
	rt.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p116-abs", "workspace_id": "ws", "thread_id": "thread-p116",
		"parent_turn_id": "p116", "cwd": ws, "workspace_root": sub}, 201, nil)
	if d := rt.decide("p116-abs", "a1", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Fatalf("control: the child with the absolute root may write %s (→ %s): %+v", target, outside, d)
	}
	if !relative {
		d := s.execApproved("p116-abs", "a2", map[string]any{"timeout_ms": 20000, "cwd": "/usr",
			"argv": []string{"/bin/sh", "-c", "echo child-wrote > " + target}})
		if b, _ := os.ReadFile(filepath.Join(outside, "b.txt")); strings.Contains(string(b), "child-wrote") {
			t.Fatalf("control: a command of the child with the absolute root wrote %s (%+v)", filepath.Join(outside, "b.txt"), d)
		}
		return
	}

	// The same root, written relative to the child's cwd.
	rt.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p116-rel", "workspace_id": "ws", "thread_id": "thread-p116",
		"parent_turn_id": "p116", "cwd": ws, "workspace_root": "sub"}, 201, nil)
	if d := rt.decide("p116-rel", "r1", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Errorf("a child started with workspace_root \"sub\" (cwd %s) may write %s, which the swap points at %s, outside its parent's root: %+v", ws, target, outside, d)
	}
	// Its command (asked in auto_accept_edits; a person approves it).
	d := s.execApproved("p116-rel", "r2", map[string]any{"timeout_ms": 20000, "cwd": "/usr",
		"argv": []string{"/bin/sh", "-c", "echo child-wrote > " + target}})
	b, _ := os.ReadFile(filepath.Join(outside, "b.txt"))
	t.Logf("child exec: ran %v decision %s refusal %s result %+v; %s now %q", d.Ran, d.Decision, d.Refusal, d.Result, filepath.Join(outside, "b.txt"), b)
	if strings.Contains(string(b), "child-wrote") {
		t.Errorf("a command of the child with a relative root wrote %s, outside its parent's root", filepath.Join(outside, "b.txt"))
	}
}

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack114_ChildRootNotBoundWhereItLed: a turn's roots are bound to
// where they led when it started (led_to: TestSwappedRootTakesNoGrant), so
// a root swapped for a link later (by a command of another turn rooted
// above it) takes no grant to where the link leads. A child turn started
// without roots of its own (it takes its parent's) is given none: the
// engine records root links from the child's own inputs (checkRoots:
// none), and IntersectFilesystem keeps, of two equal roots, the child's
// entry, which has no led_to. Widens and SandboxNarrows do not compare
// led_to either. So after the swap the parent's write through the root is
// refused, and its child's, under the same root, is allowed, and a
// command of the child writes where the link leads.
//
// Controls: before the swap the child's write is allowed (the same call);
// after it the parent's is refused.
func TestAttack114_ChildRootNotBoundWhereItLed(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	base := workspace(t)
	ws, outside := filepath.Join(base, "x"), filepath.Join(base, "elsewhere")
	makeFiles(t, "mine\n", filepath.Join(ws, "a.txt"), filepath.Join(outside, "b.txt"))
	s.startTurn("sw114", "ws", "auto_accept_edits", ws)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "sw114-child", "workspace_id": "ws", "thread_id": "thread-sw114", "parent_turn_id": "sw114"}, 201, nil)
	// Control: before the swap, writes in the root are allowed to both.
	if d := s.decide("sw114-child", "c0", "apply_patch", patch(filepath.Join(ws, "a.txt"))); d.Decision != "allow" {
		t.Fatalf("control: the child's write in the root before the swap: %+v", d)
	}
	if err := os.Rename(ws, ws+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, ws); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(ws, "b.txt")
	// Control: the parent is bound where its root led.
	if d := s.decide("sw114", "p1", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Fatalf("control: after the swap the parent's write to %s is allowed: %+v", target, d)
	}
	if d := s.decide("sw114-child", "c1", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Errorf("after its parent's root was swapped for a link, the child's write to %s (→ %s) is allowed: %+v", target, outside, d)
	}
	// The child's command (a shell command, asked in auto_accept_edits: a
	// person approves a write inside the workspace).
	d := s.execApproved("sw114-child", "c2", map[string]any{"timeout_ms": 20000,
		"argv": []string{"/bin/sh", "-c", "echo child-wrote > " + target}})
	b, _ := os.ReadFile(filepath.Join(outside, "b.txt"))
	t.Logf("child exec: ran %v decision %s refusal %s; %s now %q", d.Ran, d.Decision, d.Refusal, filepath.Join(outside, "b.txt"), b)
	if strings.Contains(string(b), "child-wrote") {
		t.Errorf("a command of the child wrote %s through its parent's swapped root", filepath.Join(outside, "b.txt"))
	}
}

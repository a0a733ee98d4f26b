package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSwappedRootTakesNoGrant: without allowed_roots, a turn's workspace
// root that is a directory when the turn starts and is then swapped for a
// link (a command of another turn rooted above it renames it away and
// links the name to a directory outside) is no root where the link leads:
// the grant stays where the root led at the start (led_to), so a write
// through it is refused, while the same write before the swap is allowed.
func TestSwappedRootTakesNoGrant(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	base := workspace(t)
	ws, outside := filepath.Join(base, "x"), filepath.Join(base, "elsewhere")
	makeFiles(t, "mine\n", filepath.Join(ws, "a.txt"), filepath.Join(outside, "b.txt"))
	s.startTurn("sw", "ws", "auto_accept_edits", ws)
	if d := s.decide("sw", "c0", "apply_patch", patch(filepath.Join(ws, "a.txt"))); d.Decision != "allow" {
		t.Fatalf("control: a write in the root before the swap: %+v", d)
	}
	if err := os.Rename(ws, ws+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, ws); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{filepath.Join(ws, "b.txt"), filepath.Join(outside, "b.txt")} {
		if d := s.decide("sw", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision == "allow" {
			t.Errorf("after the root was swapped for a link, a write to %s is allowed: %+v", f, d)
		}
	}
}

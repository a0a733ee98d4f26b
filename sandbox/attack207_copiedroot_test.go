package sandbox

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttack207_CopiedRoot (review 207, against b81b2c7a): a command over
// ws/sub is killed outright after planting a repository (core.fsmonitor)
// in ws/sub/evil. The person then moves ws/sub into ws/vol, another file
// system mounted in the workspace (a volume, a tmpfs; the same happens on
// overlayfs for a directory of a lower layer): rename(2) fails with EXDEV
// and mv copies the tree and removes the original. The root's directory
// (dev, ino, btime) is gone, the copy is a new one: relocateBelow's
// complete search of ws's mount (which does not enter ws/vol anyway)
// found nothing and the catch-up checked NOTHING ("skip"), though the
// plant then stood, unchanged, at ws/vol/sub/evil, inside the enclosing
// root. "A rename does not leave its mount" holds for rename(2), not for
// a move. Since, no search: a root gone has all of ws checked.
//
// Controls: the same move within ws's mount; a marker of the earlier
// version (no identity), which has all of ws checked too (the walk goes
// into ws/vol): the setup would see a check that reaches it.
func TestAttack207_CopiedRoot(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	mountVol := func(t *testing.T, base, ws string) {
		mustDo(t, os.Mkdir(ws+"/vol", 0o755))
		if err := unix.Mount("tmpfs", ws+"/vol", "tmpfs", 0, "size=16m"); err != nil {
			t.Fatalf("mount a tmpfs: %v", err)
		}
		t.Cleanup(func() { unix.Unmount(ws+"/vol", unix.MNT_DETACH) })
	}
	for _, c := range []struct {
		name, person, planted string
		oldMarker             bool
	}{
		{"control-moved-within-mount", "mkdir -p other/deeper && mv sub other/deeper/sub", "other/deeper/sub/evil", false},
		{"control-old-marker-copied", "mv sub vol/sub", "vol/sub/evil", true},
		{"copied-to-another-mount", "mv sub vol/sub", "vol/sub/evil", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, ws := attack207Killed(t, mountVol, c.person, c.oldMarker)
			if exists(ws + "/" + c.planted + "/.git/HEAD") {
				t.Errorf("the killed command's repository, at ws/%s after the person's %q, was not set aside (a copy has another identity)", c.planted, c.person)
			}
		})
	}
}

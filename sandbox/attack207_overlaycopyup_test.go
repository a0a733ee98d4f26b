package sandbox

import (
	"context"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack207_OverlayCopyUp (review 207, against b81b2c7a): on overlayfs
// (a container's root file system: Docker, Podman, a devcontainer whose
// workspace is in the image) a directory of the lower layer gets its
// upper directory when something is first written in it (copy-up), and
// statx then gives the upper directory's birth time (the inode number
// stays). A command over ws/ov/sub, a directory of the lower layer, is
// killed outright after planting a repository (core.fsmonitor) in
// ws/ov/sub/evil: that write copied sub up, so the identity MarkStarted
// recorded (birth time of the lower directory) no longer matches the
// directory at the very same path. relocateBelow took the path for
// "another directory", findMovedRoot met sub with the same number and
// another birth time ("a later directory with the same number: not it"),
// the search was complete, and the catch-up checked NOTHING: the plant
// stayed in place, no one having moved anything. Since, a path that does
// not lead to the marker's directory has the whole enclosing root checked
// (rootReplaced): here all of ws, the plant set aside.
//
// Control: the same with sub copied up before the command started (the
// person had written in it): the identity holds, the root is checked at
// its path and the plant set aside.
func TestAttack207_OverlayCopyUp(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name         string
		copiedBefore bool
	}{
		{"control-copied-up-before", true},
		{"lower-layer-root", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, base, map[string]string{"lower/sub/README": "r\n", "upper/": "", "work/": "", "ws/README": "r\n", "ws/ov/": ""})
			if err := unix.Mount("overlay", ws+"/ov", "overlay", 0, "lowerdir="+base+"/lower,upperdir="+base+"/upper,workdir="+base+"/work"); err != nil {
				t.Skipf("mount an overlay: %v", err)
			}
			t.Cleanup(func() { unix.Unmount(ws+"/ov", unix.MNT_DETACH) })
			sub := ws + "/ov/sub"
			if c.copiedBefore {
				mustDo(t, os.WriteFile(sub+"/notes", []byte("n\n"), 0o644))
			}
			before, _ := rootDirID(sub)
			time.Sleep(1100 * time.Millisecond)
			_, killed := startKilled(t, sub, coarseNow())
			hostSh(t, base, sub, "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+base+"/pwned\\n' >> evil/.git/config")
			killed()
			after, _ := rootDirID(sub)
			t.Logf("ws/ov/sub's identity at the start %+v, after the plant %+v", before, after)
			time.Sleep(1100 * time.Millisecond)
			// What the next command over ws does before it starts (Run:
			// the lock, then prepareSpec's catch-up), without the sandbox
			// (an idmapped mount over an overlay is refused here).
			lock, err := lockRoots(context.Background(), []string{ws})
			if err != nil {
				t.Fatal(err)
			}
			cu := catchUpFirst{since: lock.Since(), below: lock.Below()}
			if len(cu.below) != 1 || cu.below[0].Root != sub {
				t.Fatalf("premise: the next command over ws found %+v below it", cu.below)
			}
			cu.run(snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel).Sandbox.Filesystem.Entries, 0, nil)
			lock.Checked()
			lock.Release()
			t.Logf("catch-up: set aside %+v; limits %q", cu.caught, cu.limits)
			if exists(sub + "/evil/.git/HEAD") {
				t.Errorf("the killed command's repository at ws/ov/sub/evil (its root where it was, nothing moved) was not set aside: the copy-up changed the root's birth time and the catch-up judged the root gone")
			}
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRootReplaced: a marker that names the root's directory finds its
// path replaced when it leads to another directory (one made after the
// root was removed, even with its inode number again: ext4 gives a freed
// one out at once), to a file, to nothing, or through a symlink. The
// controls: the root itself at its path is not replaced; a marker of an
// earlier version (no identity) never is.
func TestRootReplaced(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.Mkdir(ws+"/root", 0o755))
	id, ok := rootDirID(ws + "/root")
	if !ok || id.ino == 0 {
		t.Fatalf("rootDirID of a directory: %+v %v", id, ok)
	}
	b := BelowSince{Root: ws + "/root", Since: coarseNow(), id: id}
	if rootReplaced(b) {
		t.Fatal("control: the root itself, at its path, taken for replaced")
	}
	if rootReplaced(BelowSince{Root: ws + "/gone", Since: b.Since}) {
		t.Error("control: a marker without the identity taken for replaced")
	}
	mustDo(t, os.Rename(ws+"/root", ws+"/moved"))
	mustDo(t, os.Symlink("moved", ws+"/root"))
	if !rootReplaced(b) {
		t.Error("the root reached through a symlink now: not replaced")
	}
	mustDo(t, os.Remove(ws+"/root"))
	if !rootReplaced(b) {
		t.Error("the root moved away, nothing at its path: not replaced")
	}
	mustDo(t, os.WriteFile(ws+"/root", []byte("x\n"), 0o644))
	if !rootReplaced(b) {
		t.Error("a file at the root's path: not replaced")
	}
	mustDo(t, os.Remove(ws+"/root"))
	mustDo(t, os.Mkdir(ws+"/root", 0o755))
	if !rootReplaced(b) {
		t.Error("another directory at the root's path: not replaced")
	}
	// A directory with the removed root's own inode number.
	mustDo(t, os.Remove(ws+"/root"))
	mustDo(t, os.RemoveAll(ws+"/moved"))
	for try := 0; ; try++ {
		mustDo(t, os.Mkdir(ws+"/root", 0o755))
		if again, _ := rootDirID(ws + "/root"); again.dev == id.dev && again.ino == id.ino {
			if id.btime == 0 {
				t.Skip("no birth time here: a directory with the root's inode number is the root")
			}
			if !rootReplaced(b) {
				t.Errorf("a directory made after the root was removed, with its inode number %d: not replaced", id.ino)
			}
			return
		}
		mustDo(t, os.Remove(ws+"/root"))
		if try == 50 {
			t.Logf("no directory made after the removal got the root's inode number in 50 tries: that case was not seen")
			return
		}
	}
}

// TestBelowMarkerNamesTheRootDirectory: a command's marker in the
// below-directory above its root names the root's directory, which
// readBelow returns with it; a marker written as before (no identity)
// still reads, without it.
func TestBelowMarkerNamesTheRootDirectory(t *testing.T) {
	base := tempWorkspace(t)
	ws := base + "/ws"
	sub := ws + "/sub"
	mustDo(t, os.MkdirAll(sub, 0o755))
	id, _ := rootDirID(sub)
	start := coarseNow()
	dir, killed := startKilled(t, sub, start)
	killed()
	got := readBelow(dir, ws)
	if len(got) != 1 || got[0].Root != sub || !got[0].Since.Equal(start) || got[0].id != id || id.ino == 0 {
		t.Fatalf("readBelow(ws) = %+v, want %s from %v, directory %+v", got, sub, start, id)
	}
	old, _, _ := strings.Cut(string(mustRead(t, belowMarker(dir, ws, sub))), "\x00")
	writeMarker(belowMarker(dir, ws, sub), []byte(old))
	if got := readBelow(dir, ws); len(got) != 1 || got[0].Root != sub || got[0].id != (rootID{}) {
		t.Errorf("a marker without the identity: %+v", got)
	}
}

// startKilled starts what a command over root killed outright leaves: the
// roots' lock taken and its start marked (start); killed releases the
// lock without the check (no Checked). The markers go with the test.
func startKilled(t *testing.T, root string, start time.Time) (dir string, killed func()) {
	t.Helper()
	lock, err := lockRoots(context.Background(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	lock.MarkStarted(start)
	if dir, err = rootLockDir(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clearMarks(dir, root) })
	return dir, lock.Release
}

// hostSh runs script with sh in dir, as the person would, HOME at home.
func hostSh(t *testing.T, home, dir, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", script, err, out)
	}
}

// clearMarks removes the pending and below markers of root.
func clearMarks(dir, root string) {
	os.Remove(pendingMarker(lockFileName(dir, root)))
	for _, a := range lockAncestors(root) {
		os.Remove(belowMarker(dir, a, root))
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCatchUpBelowRootReplaced: a command over ws/sub is killed outright
// after planting a repository (core.fsmonitor) in ws/sub/evil; then the
// person moves ws/sub aside and puts a directory, or a file, in its place.
// The catch-up of the next command over ws checked what stood at ws/sub
// (a new directory: nothing; a file: that file alone), and the moved root,
// plant and all, was kept. Now the marker names the root's directory, and
// a path that leads elsewhere has all of ws checked from the killed start,
// as a root gone does: the plant is set aside where the root went. The
// controls: the root where it was has only itself checked (the person's
// repository ws/mine, made after the kill, kept); a marker of an earlier
// version (no identity) still has the new directory checked and the plant
// kept, which this test would see.
func TestCatchUpBelowRootReplaced(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name, person string
		planted      string // where the plant is then, below ws
		oldMarker    bool
	}{
		{"control-in-place", "true", "sub/evil", false},
		{"directory-in-its-place", "mv sub other/sub2 && mkdir sub", "other/sub2/evil", false},
		{"file-in-its-place", "mv sub other/sub2 && echo notes > sub", "other/sub2/evil", false},
		{"control-old-marker", "mv sub other/sub2 && mkdir sub", "other/sub2/evil", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _, ws := attack207Killed(t, nil, c.person, c.oldMarker)
			kept := exists(ws + "/" + c.planted + "/.git/HEAD")
			switch {
			case c.oldMarker && !kept:
				t.Errorf("control: with a marker of an earlier version the moved root's plant was set aside: the test cannot tell the identity's part")
			case !c.oldMarker && kept:
				t.Errorf("the killed command's repository, at ws/%s after the person's %q, was not set aside: %v", c.planted, c.person, quarantined(r))
			}
			if c.name == "control-in-place" && !exists(ws+"/mine/.git/HEAD") {
				t.Errorf("control: the root in place, yet the person's repository ws/mine was set aside: more than the root was checked")
			}
		})
	}
}

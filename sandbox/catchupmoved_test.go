package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestFindMovedRoot: the search finds a directory by its identity where a
// rename put it, below directories of its file system only, through no
// symlink; it says complete only when it listed everything. Controls: the
// directory at its first place is found there; a bound of one directory
// cuts the search short.
func TestFindMovedRoot(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"a/b/root/f": "x\n", "x/y/z/keep": "k\n"})
	id, ok := rootDirID(ws + "/a/b/root")
	if !ok || id.btime == 0 {
		t.Fatalf("rootDirID of a directory: %+v %v (this file system keeps no birth time?)", id, ok)
	}
	_, mnt, _ := pathDirID(ws)
	if mnt == 0 {
		t.Fatal("statx gave no mount id")
	}
	if got, complete := findMovedRoot(ws, id, mnt); got != ws+"/a/b/root" || !complete {
		t.Fatalf("control: the directory where it is: %q %v", got, complete)
	}
	mustDo(t, os.Rename(ws+"/a/b/root", ws+"/x/y/z/moved"))
	if got, complete := findMovedRoot(ws, id, mnt); got != ws+"/x/y/z/moved" || !complete {
		t.Errorf("a directory renamed within ws: found %q (complete %v), want %s", got, complete, ws+"/x/y/z/moved")
	}
	defer func(n int) { maxMovedRootDirs = n }(maxMovedRootDirs)
	maxMovedRootDirs = 1
	if got, complete := findMovedRoot(ws, id, mnt); got != "" || complete {
		t.Errorf("under a bound of one directory: %q, complete %v; want not found, cut short", got, complete)
	}
	maxMovedRootDirs = 200_000

	// Behind a symlink only: not followed, so not found, and complete.
	out := tempWorkspace(t)
	mustDo(t, os.Rename(ws+"/x/y/z/moved", out+"/moved"))
	mustDo(t, os.Symlink(out, ws+"/link"))
	if got, complete := findMovedRoot(ws, id, mnt); got != "" || !complete {
		t.Errorf("a directory reached only through a symlink in ws: found %q (complete %v); want not found, complete", got, complete)
	}
	// Removed: not found, complete.
	mustDo(t, os.RemoveAll(out+"/moved"))
	if got, complete := findMovedRoot(ws, id, mnt); got != "" || !complete {
		t.Errorf("a removed directory: found %q (complete %v)", got, complete)
	}
}

// TestFindMovedRootNotFooledByAReusedInode: a directory made after the
// root was removed may get its inode number (ext4 gives a freed one out
// again at once: the first version of the search took the person's next
// directory for the root moved, and the catch-up set it aside). Its birth
// time tells it apart. The control: the root itself, same number and
// birth time, is found.
func TestFindMovedRootNotFooledByAReusedInode(t *testing.T) {
	ws := tempWorkspace(t)
	for try := 0; ; try++ {
		mustDo(t, os.Mkdir(ws+"/root", 0o755))
		id, ok := rootDirID(ws + "/root")
		if !ok || id.btime == 0 {
			t.Fatalf("rootDirID: %+v %v (this file system keeps no birth time?)", id, ok)
		}
		_, mnt, _ := pathDirID(ws)
		if got, complete := findMovedRoot(ws, id, mnt); got != ws+"/root" || !complete {
			t.Fatalf("control: the root where it is: %q %v", got, complete)
		}
		mustDo(t, os.Remove(ws+"/root"))
		mustDo(t, os.Mkdir(ws+"/later", 0o755))
		later, _ := rootDirID(ws + "/later")
		if later.ino != id.ino || later.dev != id.dev {
			mustDo(t, os.Remove(ws+"/later"))
			if try == 50 {
				t.Fatalf("no directory made after a removal got the removed one's inode in 50 tries (%s): the reuse this test needs did not happen", ws)
			}
			continue
		}
		if got, complete := findMovedRoot(ws, id, mnt); got != "" || !complete {
			t.Errorf("a directory made after the root was removed, with its inode %d (birth %d against %d): found %q (complete %v); want not found, complete", id.ino, later.btime, id.btime, got, complete)
		}
		return
	}
}

// TestRelocateBelowOnAnotherMount: the killed command's root lies on a
// file system mounted below the enclosing root (a tmpfs here): the search
// starts at the top of that mount, not at the enclosing root, whose own
// file system a rename from there cannot reach, and finds the root moved
// within the mount. The controls: the root where it was is checked at its
// path; removed, nothing is left to check.
func TestRelocateBelowOnAnotherMount(t *testing.T) {
	requireRoot(t)
	ws := tempWorkspace(t)
	mustDo(t, os.Mkdir(ws+"/mnt", 0o755))
	if err := unix.Mount("tmpfs", ws+"/mnt", "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(ws+"/mnt", unix.MNT_DETACH) })
	mkfiles(t, ws+"/mnt", map[string]string{"a/root/f": "x\n", "b/keep": "k\n"})
	id, ok := rootDirID(ws + "/mnt/a/root")
	if !ok {
		t.Fatal("rootDirID")
	}
	b := BelowSince{Root: ws + "/mnt/a/root", Since: coarseNow(), id: id}
	if root, note, skip := relocateBelow(b, []string{ws}); root != b.Root || note != "" || skip {
		t.Fatalf("control: the root at its path: %q %q %v", root, note, skip)
	}
	mustDo(t, os.Rename(ws+"/mnt/a/root", ws+"/mnt/b/moved"))
	if root, note, skip := relocateBelow(b, []string{ws}); root != ws+"/mnt/b/moved" || skip {
		t.Errorf("the root moved within its mount below ws: checked at %q (skip %v; %s), want %s", root, skip, note, ws+"/mnt/b/moved")
	}
	mustDo(t, os.RemoveAll(ws+"/mnt/b/moved"))
	if root, note, skip := relocateBelow(b, []string{ws}); !skip {
		t.Errorf("control: the root removed: checked at %q (%s), want nothing", root, note)
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

// TestCatchUpBelowFollowsTheRootDirectory: a command over ws/sub is killed
// outright after planting a repository (core.fsmonitor) in ws/sub/evil;
// then the person moves ws/sub elsewhere in ws, or removes it, or moves it
// and makes another ws/sub, and makes a repository of their own, ws/mine.
// The next command over ws checks the killed command's root where it is
// now: the plant is set aside wherever the root went, and the person's
// repository, which the killed command could not have made, is kept; a
// root removed leaves nothing to check. The control: a marker of an
// earlier version (no identity) has the whole of ws checked from the
// killed start, as before, which sets the person's repository aside too:
// the test's setup would see a check that still walked all of ws.
func TestCatchUpBelowFollowsTheRootDirectory(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name, person string // what the person does after the kill, in ws
		planted      string // where the plant is then, below ws ("": gone)
		oldMarker    bool
	}{
		{"moved", "mkdir -p other && mv sub other/sub2", "other/sub2/evil", false},
		{"moved-and-replaced", "mkdir -p other && mv sub other/sub2 && mkdir sub", "other/sub2/evil", false},
		{"removed", "rm -rf sub", "", false},
		{"control-old-marker-moved", "mkdir -p other && mv sub other/sub2", "other/sub2/evil", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n", "README": "r\n"})
			sub := ws + "/sub"
			run := func(dir, script string) { hostSh(t, base, dir, script) }
			dir, killed := startKilled(t, sub, coarseNow())
			run(sub, "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+base+"/pwned\\n' >> evil/.git/config")
			killed()
			if c.oldMarker {
				m := belowMarker(dir, ws, sub)
				old, _, _ := strings.Cut(string(mustRead(t, m)), "\x00")
				writeMarker(m, []byte(old))
			}
			time.Sleep(1100 * time.Millisecond)
			run(ws, c.person)
			run(ws, "git init -q mine && printf '[core]\\n\\tfsmonitor = true\\n' >> mine/.git/config")
			time.Sleep(1100 * time.Millisecond)
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel), "echo next")
			if string(r.Stdout) != "next\n" {
				t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("next command: set aside %v; limits %q", quarantined(r), r.CheckLimits)
			if c.planted != "" && exists(ws+"/"+c.planted+"/.git/HEAD") {
				t.Errorf("the killed command's repository, at %s after the person's %q, was not set aside: %v", c.planted, c.person, quarantined(r))
			}
			kept := exists(ws + "/mine/.git/HEAD")
			switch {
			case c.oldMarker && kept:
				t.Errorf("control: a marker without the identity did not have all of ws checked from the killed start (the person's repository was kept): the test cannot tell a narrowed check")
			case !c.oldMarker && !kept:
				t.Errorf("FALSE SET-ASIDE: the person's repository ws/mine, made after the kill, was set aside: the check walked more than the killed command's root (%q): %v", c.person, quarantined(r))
			}
			if !c.oldMarker && !strings.Contains(strings.Join(r.CheckLimits, "\n"), sub) {
				t.Errorf("the limits do not say where the root of the killed command went: %q", r.CheckLimits)
			}
		})
	}
}

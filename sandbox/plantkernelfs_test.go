package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestPlantWalkSkipsKernelFS: the check after a command does not walk a
// proc or sysfs mounted in a writable root (a turn rooted at "/" walked
// every task of every process in /proc, and each fdinfo it could not read
// was a line of the command's limits). Control: a tmpfs mounted there is
// walked, and a repository planted in it is set aside.
//
// The mounts are made in a private mount namespace of the test's own
// thread (locked to it, never returned to the scheduler), which the view
// and the check use (neither starts a goroutine).
func TestPlantWalkSkipsKernelFS(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"p/": "", "s/": "", "t/": ""})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // not unlocked: the thread ends with the goroutine
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			t.Error(err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			t.Error(err)
			return
		}
		for _, m := range [][2]string{{"proc", "p"}, {"sysfs", "s"}, {"tmpfs", "t"}} {
			if err := unix.Mount(m[0], filepath.Join(ws, m[1]), m[0], 0, ""); err != nil {
				t.Errorf("mount %s: %v", m[0], err)
				return
			}
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
		pc := newPlantCheck(newFSView(&s.Sandbox.Filesystem))
		if pc == nil {
			t.Error("no check for an auto_accept_edits workspace")
			return
		}
		since := coarseNow()
		git := filepath.Join(ws, "t", "x", ".git")
		mkfiles(t, git, map[string]string{"HEAD": "ref: refs/heads/main\n", "objects/": "", "refs/": "",
			"config": "[core]\n\tfsmonitor = /tmp/planted-by-the-command\n"})
		var visited []string
		plantVisitHook = func(root, rel string) {
			if root == ws {
				visited = append(visited, rel)
			}
		}
		found, limits := pc.run(since)
		plantVisitHook = nil
		for _, rel := range visited {
			if rel == "p" || rel == "s" || strings.HasPrefix(rel, "p/") || strings.HasPrefix(rel, "s/") {
				t.Errorf("the check walked %s, a kernel file system (%d directories visited)", rel, len(visited))
				break
			}
		}
		for _, l := range limits {
			if strings.Contains(l, ws+"/p/") || strings.Contains(l, ws+"/s/") {
				t.Errorf("a limit of the kernel file systems: %s", l)
				break
			}
		}
		set := false
		for _, q := range found {
			set = set || strings.HasPrefix(q.Path, filepath.Join(ws, "t", "x"))
		}
		if _, err := os.Stat(filepath.Join(git, "HEAD")); !set || err == nil {
			t.Errorf("control: a repository planted in a tmpfs mounted in the root was not set aside: %+v", found)
		}
	}()
	<-done
}

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestWalkedSocketMasksAreBounded: socket files the walk of a writable root
// finds are masked, each with a mount in the command's view, but at most
// maxWalkedSocketMasks of them: a command that leaves thousands of stale
// socket files behind (nothing listens on them) made every later command
// mount them all, and past fs.mount-max refused it (an attack review).
// Control: three such files are all masked.
func TestWalkedSocketMasksAreBounded(t *testing.T) {
	f := requireKernel(t, true)
	mounts := func(ws string) int {
		walkCache.mu.Lock()
		delete(walkCache.m, ws)
		walkCache.mu.Unlock()
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "wc -l < /proc/self/mountinfo"}}, nil)
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%v %s %s", err, r.Stdout, r.Stderr)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	leave := func(dir string, n int) {
		for i := range n {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := unix.Bind(fd, &unix.SockaddrUnix{Name: fmt.Sprintf("%s/s%d", dir, i)}); err != nil {
				t.Fatal(err)
			}
			unix.Close(fd)
		}
	}
	for _, c := range []struct{ files, want int }{{3, 3}, {300, maxWalkedSocketMasks}} {
		ws := tempWorkspace(t)
		if err := os.Mkdir(ws+"/left", 0o755); err != nil {
			t.Fatal(err)
		}
		before := mounts(ws)
		leave(ws+"/left", c.files)
		if got := mounts(ws) - before; got != c.want {
			t.Errorf("%d socket files left in the workspace: %d more mounts in a command's view, want %d", c.files, got, c.want)
		}
	}
}

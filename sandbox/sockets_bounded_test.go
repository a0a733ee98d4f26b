package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestStaleSocketFilesAreNotMasked: socket files a walk of a writable root
// finds are masked (each a mount in the command's view) only when a host
// process listens on them: a command that left 100,000 stale socket files
// behind made every later command mount them all, and past fs.mount-max
// refused it (an attack review). Here 300 stale files add no mount, and one
// live host listener among them adds one and is refused from inside (the
// control: from outside it answers).
func TestStaleSocketFilesAreNotMasked(t *testing.T) {
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
	ws := tempWorkspace(t)
	if err := os.Mkdir(ws+"/left", 0o755); err != nil {
		t.Fatal(err)
	}
	before := mounts(ws)
	leave(ws+"/left", 300)
	if got := mounts(ws) - before; got != 0 {
		t.Errorf("300 stale socket files in the workspace: %d more mounts in a command's view, want 0", got)
	}
	ln, err := net.Listen("unix", ws+"/left/zz-live.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	// Renamed, so that only the walk can find it.
	if err := os.Rename(ws+"/left/zz-live.sock", ws+"/left/zz-moved.sock"); err != nil {
		t.Fatal(err)
	}
	if got := mounts(ws) - before; got != 1 {
		t.Errorf("a live host socket among 300 stale ones: %d more mounts, want 1", got)
	}
	c, err := net.Dial("unix", ws+"/left/zz-moved.sock")
	if err != nil {
		t.Fatalf("control: the live socket from outside: %v", err)
	}
	c.Close()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))
	if r := probeIn(t, s, "unix-connect", ws+"/left/zz-moved.sock"); r.ExitCode != 1 {
		t.Errorf("the live host socket among stale ones was reached from inside: %s %s", r.Stdout, r.Stderr)
	}
}

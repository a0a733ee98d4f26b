package sandbox

import (
	"net"
	"os"
	"sync/atomic"
	"testing"

	"turnstile/domain"
)

// hostListener binds a unix socket at path in this process (the host,
// outside any sandbox) and counts the connections it accepts.
func hostListener(t *testing.T, path string) *atomic.Int64 {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

// forgetWalks drops the cached walks, so that each command below is
// judged on a fresh walk (this test is not about the 2 s cache).
func forgetWalks() {
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
}

// TestAttack5SocketMovedIntoGitDirReachable: walkRoot does not enter ".git"
// directories, so a unix socket file below any ".git" of a writable root is
// never among the walked sockets (protect.go: walkRoot's `continue` on
// ".git"). A host service's socket bound at an absolute path in the
// workspace is masked (/proc/net/unix lists it) until the agent's command
// makes a directory sub/.git of its own and moves the directory holding the
// socket into it (renaming the parent of a mount point is allowed; the
// listed path no longer exists). From then on every later
// auto_accept_edits command — in the server or `turnstile sandbox`, walk
// cache or not — reaches the host's service through the idmapped
// workspace. (A ".git" the walk finds becomes its own pinned, writable
// mount: the socket stays connectable there.)
//
// Controls: the socket is masked where the host bound it; the same move
// into an ordinary directory (sub/) is caught by the walk; the host still
// reaches the moved sockets.
func TestAttack5SocketMovedIntoGitDirReachable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	for _, d := range []string{"/.git/objects", "/.git/refs", "/run", "/run2", "/sub"} {
		if err := os.MkdirAll(ws+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(ws+"/.git/HEAD", []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostListener(t, ws+"/run/agent.sock")
	hostListener(t, ws+"/run2/agent.sock")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))

	// Control: where the host bound it, the socket is masked.
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", ws+"/run/agent.sock"); r.ExitCode != 1 {
		t.Fatalf("control: the host's socket at its bound path was reached: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}

	// The agent's first command moves the two directories.
	forgetWalks()
	r := sh(t, s, "mkdir "+ws+"/sub/.git && mv "+ws+"/run "+ws+"/sub/.git/run && mv "+ws+"/run2 "+ws+"/sub/run2")
	if r.ExitCode != 0 {
		t.Fatalf("moving the sockets' directories: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	// Control: the host still reaches both.
	for _, p := range []string{ws + "/sub/.git/run/agent.sock", ws + "/sub/run2/agent.sock"} {
		c, err := net.Dial("unix", p)
		if err != nil {
			t.Fatalf("control: the moved socket %s from outside: %v", p, err)
		}
		c.Close()
	}

	// Control: moved into an ordinary directory, the walk finds it.
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", ws+"/sub/run2/agent.sock"); r.ExitCode != 1 {
		t.Fatalf("control: the socket moved into sub/ was reached: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	// The attack: moved into .git, nothing masks it.
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", ws+"/sub/.git/run/agent.sock"); r.ExitCode != 1 {
		t.Errorf("the host's socket moved into sub/.git by an earlier command was reached from the sandbox: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
}

package sandbox

import (
	"net"
	"os"
	"testing"

	"turnstile/domain"
)

// TestRenamedHostSocketInWritableRootRefused: a socket the host bound in
// the workspace and renamed since is listed by /proc/net/unix at the path
// it was bound at, so masking that path missed it, and in
// auto_accept_edits the idmapped root made it the command's to connect to
// (an attack review; a socket bound at a relative path is the same case).
// The walk of the writable roots finds socket files and they are masked
// too. Controls: the renamed socket answers from outside, and a socket the
// command binds in the workspace itself works.
func TestRenamedHostSocketInWritableRootRefused(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	if err := os.MkdirAll(ws+"/sub/deeper", 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", ws+"/bound.sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	moved := ws + "/sub/deeper/moved.sock"
	if err := os.Rename(ws+"/bound.sock", moved); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", moved)
	if err != nil {
		t.Fatalf("control: the renamed socket from outside: %v", err)
	}
	c.Close()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))
	if r := probeIn(t, s, "unix-connect", moved); r.ExitCode != 1 {
		t.Errorf("the host's socket renamed inside the workspace was reached from the sandbox: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `exec "$0" "$1" unix-own "$2"`, testExe(t), testProbeArg, ws + "/sub"}}, nil)
	if err != nil || r.ExitCode != 0 {
		t.Errorf("control: a socket the command binds in the workspace: %v %s %s", err, r.Stdout, r.Stderr)
	}
}

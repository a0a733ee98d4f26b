package sandbox

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// hostSockets starts listening unix sockets the way host daemons have them:
// in a 0700 directory (like ssh-agent's), in a world-writable directory
// (mode 0777, like /tmp/.X11-unix), under /tmp, inside the workspace, and
// an abstract one. Every listener accepts and closes connections.
func hostSockets(t *testing.T, ws string) map[string]string {
	t.Helper()
	base := visibleWorkspace(t)
	private, public := base+"/agent", base+"/public"
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(public, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(public, 0o1777)
	tmpDir := tempWorkspace(t)
	os.Chmod(tmpDir, 0o755)
	socks := map[string]string{
		"0700 dir":         private + "/agent.sock",
		"world-writable":   public + "/X0",
		"under /tmp":       tmpDir + "/daemon.sock",
		"in the workspace": ws + "/host.sock",
		"abstract":         "@turnstile-test-" + token(),
	}
	for _, p := range socks {
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		if !strings.HasPrefix(p, "@") {
			os.Chmod(p, 0o777)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	return socks
}

// TestHostUnixSocketsRefused (issue 9.4): in every restricted mode a
// command cannot connect to a unix socket the host created (pathname, in a
// 0700 or a world-writable directory, under /tmp, inside a writable root,
// or abstract), while socketpair and a socket it binds in its own writable
// space work. Controls: the same connections from outside succeed, and with
// allow_unix_sockets the world-writable one is reached from inside.
func TestHostUnixSocketsRefused(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	socks := hostSockets(t, ws)
	exeDir := filepathDir(testExe(t))
	for name, p := range socks {
		c, err := net.Dial("unix", p)
		if err != nil {
			t.Fatalf("control: %s socket from outside: %v", name, err)
		}
		c.Close()
	}
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		t.Run(string(mode), func(t *testing.T) {
			s := snapshotFor(t, mode, ws, f.Kernel, exeDir)
			if s.Network.AllowUnixSockets {
				t.Fatal("allow_unix_sockets must default to false in restricted modes")
			}
			for name, p := range socks {
				if r := probeIn(t, s, "unix-connect", p); r.ExitCode != 1 {
					t.Errorf("%s socket %s reached from the sandbox: %s %s", name, p, r.Stdout, r.Stderr)
				}
			}
			if r := probeIn(t, s, "unix-pair"); r.ExitCode != 0 {
				t.Errorf("socketpair: %s %s", r.Stdout, r.Stderr)
			}
			own := ws
			if mode == domain.ModeSupervised {
				own = "" // read-only workspace: the isolated $TMPDIR
			}
			r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `exec "$0" "$1" unix-own "${2:-$TMPDIR}"`, testExe(t), testProbeArg, own}}, nil)
			if err != nil || r.ExitCode != 0 {
				t.Errorf("own socket: %v %s %s", err, r.Stdout, r.Stderr)
			}
			// allow_unix_sockets is honoured: the world-writable host
			// socket is reached (DAC still guards the 0700 one).
			allowed := *s
			allowed.Network.AllowUnixSockets = true
			if r := probeIn(t, &allowed, "unix-connect", socks["world-writable"]); r.ExitCode != 0 {
				t.Errorf("allow_unix_sockets: %s %s", r.Stdout, r.Stderr)
			}
			if r := probeIn(t, &allowed, "unix-connect", socks["abstract"]); r.ExitCode != 0 {
				t.Errorf("allow_unix_sockets, abstract: %s %s", r.Stdout, r.Stderr)
			}
		})
	}
	// Below Landlock ABI 6 (no abstract-socket scoping) the helper gets a
	// network namespace of its own instead.
	s := snapshotFor(t, domain.ModeSupervised, ws, f.Kernel, exeDir)
	r, err := run(t, s, SpawnRequest{Argv: probeCmd(t, "unix-connect", socks["abstract"])}, func(p *Plan) { p.Sandbox.LandlockABI = 5 })
	if err != nil || r.ExitCode != 1 {
		t.Errorf("abstract socket with Landlock ABI 5: %v %s %s", err, r.Stdout, r.Stderr)
	}
}

// TestLateHostSocketUnderTmpHidden: a socket the host binds under /tmp after
// the command started is not reachable either (the command sees an empty
// /tmp, apart from its own temp dir). Control: the same socket from outside.
func TestLateHostSocketUnderTmpHidden(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	dir, err := os.MkdirTemp("/tmp", "turnstile-late-") // 0755 ancestors: reachable but for the hidden /tmp
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	sock := dir + "/late.sock"
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))
	script := `echo > ready; while [ ! -e go ]; do sleep 0.01; done; exec "$0" "$1" unix-connect "$2"`
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script, testExe(t), testProbeArg, sock}, TimeoutMs: 60000}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result, 1)
	go func() { r, _ := Run(context.Background(), p); done <- r }()
	for deadline := time.Now().Add(30 * time.Second); !exists(ws + "/ready"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(sock, 0o777)
	os.WriteFile(ws+"/go", nil, 0o644)
	if r := <-done; r == nil || r.ExitCode != 1 {
		t.Fatalf("late host socket under /tmp reached: %+v", r)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("control: from outside: %v", err)
	}
	c.Close()
}

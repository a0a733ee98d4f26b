package sandbox

import (
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/domain"
)

// TestHostSocketLinkRemovedAfterCommand: a command links a socket the host
// bound while it ran (ln run/svc.sock x.sock); the check after it removes
// the link and says so, and the host's own name stays (the host still
// reaches its service there). A later command over a narrower root then
// runs (no name of the listener lies where its walk cannot look) and is
// refused at the bound name. Control: a socket the command binds itself
// and a file it writes stay.
func TestHostSocketLinkRemovedAfterCommand(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	exeDir := filepathDir(testExe(t))
	ws := visibleWorkspace(t)
	for _, d := range []string{ws + "/run", ws + "/sub"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sock := ws + "/run/svc.sock"
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, exeDir)
	var l net.Listener
	r := whileHostBinds(t, s, ws, sock,
		"ln "+sock+" "+ws+"/x.sock && echo LINKED; echo kept > "+ws+"/notes.txt; "+
			"python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\""+ws+"/own.sock\")'",
		func() { l = listenUnix(t, sock) })
	serveUnix(l)
	if r == nil || !strings.Contains(string(r.Stdout), "LINKED") {
		t.Fatalf("premise: the link failed: %+v", r)
	}
	if _, err := os.Lstat(ws + "/x.sock"); err == nil {
		t.Errorf("the hard link x.sock to the host's socket stayed after the command (%+v)", r.Quarantined)
	}
	named := false
	for _, q := range r.Quarantined {
		named = named || q.Path == ws+"/x.sock" && q.Error == ""
	}
	if !named {
		t.Errorf("the result does not name the removed link: %+v", r.Quarantined)
	}
	if c, err := net.Dial("unix", sock); err != nil {
		t.Errorf("control: the host does not reach its service at its own name: %v", err)
	} else {
		c.Close()
	}
	for _, n := range []string{"notes.txt", "own.sock"} {
		if _, err := os.Lstat(ws + "/" + n); err != nil {
			t.Errorf("control: the command's own %s was not left: %v", n, err)
		}
	}
	narrow := snapshotFor(t, domain.ModeAutoAcceptEdits, ws+"/sub", f.Kernel, exeDir)
	nr, err := run(t, narrow, SpawnRequest{Argv: probeCmd(t, "unix-connect", sock)}, nil)
	if err != nil || nr == nil {
		t.Fatalf("a later command over sub was refused: %v", err)
	}
	if nr.ExitCode == 0 && strings.Contains(string(nr.Stdout), "ok") {
		t.Errorf("control: a command over sub reached the host's socket at its bound name")
	}
}

// whileHostBinds runs script under s once the host has bound sock while
// the command ran (the README's known limit for that command): the
// command says it started (ws/started), bind (the host's service) runs,
// and the command, which waits for the socket, runs script.
func whileHostBinds(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, ws, sock, script string, bind func()) *Result {
	t.Helper()
	done := make(chan *Result, 1)
	go func() {
		r, _ := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c",
			": > " + ws + "/started; i=0; until [ -S " + sock + " ] || [ $i -gt 200 ]; do sleep 0.05; i=$((i+1)); done; " + script}}, nil)
		done <- r
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(ws + "/started"); err == nil {
			break
		}
		if i == 1000 {
			t.Fatalf("premise: the command did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	bind()
	return <-done
}

// listenUnix listens at p, closed when the test ends.
func listenUnix(t *testing.T, p string) net.Listener {
	t.Helper()
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// serveUnix accepts l's connections, counting them, until l closes.
func serveUnix(l net.Listener) *atomic.Int64 {
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

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

// TestAttack162_HostSocketHardLinkOutsideWalk (review 162): a restricted
// command with the network disabled (allow_unix_sockets off) may not
// connect to the pathname sockets the host has bound when it starts. The
// view masks each listener at the path the kernel lists it by
// (/proc/net/unix, sock_diag), and the walk of the command's WRITABLE
// ROOTS finds every other name of a listener's inode there. A unix socket
// is looked up by its inode, not by its name: a hard link to it reaches the
// listener. So an earlier command whose writable root holds a host
// service's socket (a dev server's, a database's, an agent socket in the
// workspace: /ws/run/svc.sock) makes a second name for it anywhere in that
// root (ln run/svc.sock x.sock); its own check and the next command over
// the same root mask both names. A later command whose writable root is
// narrower (a subdirectory, /ws/sub, another turn's project) is not walked
// over /ws: its view masks the socket at /ws/run/svc.sock only, and the
// link at /ws/x.sock is reached (connect needs only search permission on
// the directories, which Landlock does not restrict). The README's known
// limits name a socket "renamed after it was bound ... outside the
// writable roots", not a second link, which the command itself makes and
// which leaves the socket at its bound name (no rename, no pin broken).
//
// Root cause: sandbox/sockmask.go (hostSocketMasks) masks by the bound
// path plus the writable roots' walk; nothing looks for other links of a
// listener's inode outside the writable roots, and Landlock has no right
// for connect(2) on a pathname socket.
//
// Fix: refuse (or mask) a listener socket whose st_nlink > 1 when it lies
// in a writable root (the check after a command can remove the extra
// links it made to a listening socket, as it removes links in git dirs),
// or walk the read roots above a writable root for the listeners' inodes;
// on kernels with Landlock's unix-socket scoping for pathname sockets,
// use it.
//
// Controls: the same later command is refused at the socket's bound name;
// a command over the whole workspace is refused at the link too (the walk).
func TestAttack162_HostSocketHardLinkOutsideWalk(t *testing.T) {
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
	wide := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, exeDir)
	// The earlier command runs while the host service starts (a dev server
	// the person starts meanwhile: a socket bound after the command
	// started, the README's known limit for that command) and makes a
	// second name for the socket in its root.
	type res struct{ r *Result }
	done := make(chan res, 1)
	go func() {
		r, _ := run(t, wide, SpawnRequest{Argv: []string{"/bin/sh", "-c",
			"i=0; until [ -S " + sock + " ] || [ $i -gt 200 ]; do sleep 0.05; i=$((i+1)); done; ln " + sock + " " + ws + "/x.sock && echo LINKED"}}, nil)
		done <- res{r}
	}()
	var l net.Listener
	var err error
	for i := 0; i < 100; i++ { // wait for the command's view to be built
		time.Sleep(100 * time.Millisecond)
		if _, e := os.Stat(ws + "/run"); e == nil && i >= 5 {
			break
		}
	}
	l, err = net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Chmod(sock, 0o777); err != nil { // a service any local user may reach (X11, a dev server)
		t.Fatal(err)
	}
	var accepted atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	a := (<-done).r
	if a == nil || !strings.Contains(string(a.Stdout), "LINKED") {
		t.Fatalf("premise: the link failed: %+v", a)
	}
	connect := func(s *domain.TurnExecutionSecuritySnapshot, p string) (bool, string) {
		r := probeIn(t, s, "unix-connect", p)
		return r.ExitCode == 0 && strings.Contains(string(r.Stdout), "ok"), string(r.Stdout) + string(r.Stderr)
	}
	if ok, out := connect(wide, sock); ok {
		t.Fatalf("control: a command over the workspace reached the host's socket at its bound name: %s", out)
	}
	before := accepted.Load()
	if ok, out := connect(wide, ws+"/x.sock"); ok {
		t.Errorf("a later command with the network disabled over %s connected to the host's listening socket %s through the hard link %s/x.sock an earlier command made (%d accepted): %s",
			ws, sock, ws, accepted.Load()-before, strings.TrimSpace(out))
	}

	narrow := snapshotFor(t, domain.ModeAutoAcceptEdits, ws+"/sub", f.Kernel, exeDir)
	if ok, out := connect(narrow, sock); ok {
		t.Fatalf("control: a command over %s/sub reached the host's socket at its bound name: %s", ws, out)
	}
	before = accepted.Load()
	if ok, out := connect(narrow, ws+"/x.sock"); ok {
		t.Errorf("a later command over %s/sub (the link outside its writable root) connected to %s through %s/x.sock (%d accepted): %s",
			ws, sock, ws, accepted.Load()-before, strings.TrimSpace(out))
	}
}

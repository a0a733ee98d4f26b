package sandbox

import (
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"turnstile/domain"
)

// TestAttack162_HostSocketHardLinkOutsideWalk (review 162, medium): a
// restricted command with the network disabled (allow_unix_sockets off)
// may not connect to the pathname sockets the host has bound when it
// starts; "within [the writable roots] the walk finds every socket file a
// host process listens on, by the kernel's list of listeners, and masks it
// too". A unix socket is reached through any hard link to its file (the
// kernel looks the listener up by inode). A socket the host binds while a
// command runs (the person starts a dev server in the workspace: the
// README's known limit for that one command) is not masked in that
// command's view, so the command can link it (ln run/svc.sock x.sock); the
// link keeps the host service reachable from LATER commands, where the
// known limit no longer applies:
//
//   - a later command over the same root, spawned within walkTTL (2 s) of
//     the linking one (an agent's back-to-back tool calls through one
//     server), reuses the earlier walk, which predates the link; the
//     listener itself still lies at its bound name, so it is not "lost" and
//     no fresh walk looks for its other names: x.sock stays open;
//   - a later command over a narrower root (ws/sub, another turn's project
//     in the workspace) never walks ws: the link lies outside its writable
//     roots, and connect(2) needs only search permission on the
//     directories, which Landlock does not restrict (also with a fresh
//     walk: `turnstile sandbox --root ws/sub` connects through ws/x.sock).
//
// Root cause: sandbox/sockmask.go hostSocketMasks skips a listener whose
// bound name still leads to it (at(name, id) → "masked there") and masks
// its other names only where the (possibly reused) walk of the writable
// roots met them; nothing looks for a second link outside the writable
// roots, or made after a reused walk.
//
// Fix: when a live listener's file has st_nlink > 1 (fstat through the
// bound name, or sock_diag's UDIAG_SHOW_VFS and a stat), treat it as lost
// (fresh walk of the writable roots that enters .git too) and refuse the
// command, or mask the listener's inode by walking the read roots, when a
// link may lie outside them; in the check after a command, remove the
// links a command made to a host listener's file (as links in git dirs
// are removed).
//
// Controls: both later commands are refused at the socket's bound name.
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
	var accepted *atomic.Int64
	a := whileHostBinds(t, wide, ws, sock, "ln "+sock+" "+ws+"/x.sock && echo LINKED", func() {
		l := listenUnix(t, sock)
		if err := os.Chmod(sock, 0o777); err != nil { // a service any local user may reach (X11, a dev server)
			t.Fatal(err)
		}
		accepted = serveUnix(l)
	})
	if a == nil || !strings.Contains(string(a.Stdout), "LINKED") {
		t.Fatalf("premise: the link failed: %+v", a)
	}
	// The check after the command removes the link it made
	// (TestHostSocketLinkRemovedAfterCommand); one it could not reach
	// (past its bounds, or made while another command of the turn ran) is
	// made here, for the later commands' own defence.
	if _, err := os.Lstat(ws + "/x.sock"); err != nil {
		if err := os.Link(sock, ws+"/x.sock"); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(s *domain.TurnExecutionSecuritySnapshot, p string) (bool, string) {
		// A fix may refuse the command itself (126): that is a refusal too.
		r, err := run(t, s, SpawnRequest{Argv: probeCmd(t, "unix-connect", p)}, nil)
		if err != nil || r == nil {
			return false, fmt.Sprint("refused: ", err)
		}
		return r.ExitCode == 0 && strings.Contains(string(r.Stdout), "ok"), string(r.Stdout) + string(r.Stderr)
	}
	if c, err := net.Dial("unix", ws+"/x.sock"); err != nil {
		t.Fatalf("control: the host does not reach the listener through the link: %v", err)
	} else {
		c.Close()
	}
	if ok, out := connect(wide, sock); ok {
		t.Fatalf("control: a command over the workspace reached the host's socket at its bound name: %s", out)
	}
	before := accepted.Load()
	if ok, out := connect(wide, ws+"/x.sock"); ok {
		t.Errorf("a later command with the network disabled over %s connected to the host's listening socket %s through the hard link %s/x.sock an earlier command made (%d accepted): %s",
			ws, sock, ws, accepted.Load()-before, strings.TrimSpace(out))
	}

	// Control: the link reaches the listener, from the host and from a
	// command of a snapshot that allows unix sockets (where the refusal
	// below does not apply).
	// Each command's check removes the link where its roots hold it:
	// made again for the next.
	relink := func() {
		if _, err := os.Lstat(ws + "/x.sock"); err != nil {
			if err := os.Link(sock, ws+"/x.sock"); err != nil {
				t.Fatal(err)
			}
		}
	}
	relink()
	allowed := snapshotFor(t, domain.ModeAutoAcceptEdits, ws+"/sub", f.Kernel, exeDir)
	allowed.Network.AllowUnixSockets = true
	if ok, out := connect(allowed, ws+"/x.sock"); !ok {
		t.Fatalf("control: a command allowed unix sockets does not reach the listener through the link: %s", out)
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

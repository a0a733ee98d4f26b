package sandbox

import (
	"net"
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack5SocketMovedWithinWalkTTLReachable: in the server (one process,
// many commands) the walk of a writable root is reused for 2 s
// (walkCache), and the socket list it carries is masked by path. A host
// service's socket bound in the workspace is masked at its bound path;
// the agent's command renames the directory holding it (the parent of a
// mount point may be renamed), and the agent's next command, started
// within 2 s, gets the cached walk (the old path) and /proc/net/unix (the
// old path): nothing is masked at the new path and the command connects
// to the host's service through the idmapped workspace. (The limit in
// doctor.go reads as if only the host renamed sockets; the agent can move
// any host socket of a writable root, so the TTL — like the depth bound —
// opens every one of them.)
//
// Controls: the socket is masked where the host bound it; after the move
// the same connect is refused when the walk is fresh; the host reaches the
// moved socket.
func TestAttack5SocketMovedWithinWalkTTLReachable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	for _, d := range []string{"/run", "/sub"} {
		if err := os.MkdirAll(ws+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostListener(t, ws+"/run/agent.sock")
	moved := ws + "/sub/run/agent.sock"
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))

	forgetWalks()
	if r := probeIn(t, s, "unix-connect", ws+"/run/agent.sock"); r.ExitCode != 1 {
		t.Fatalf("control: the host's socket at its bound path was reached: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	// The agent's command moves it (this command's plan walks afresh and
	// fills the cache).
	forgetWalks()
	if r := sh(t, s, "mv "+ws+"/run "+ws+"/sub/run"); r.ExitCode != 0 {
		t.Fatalf("moving the socket's directory: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	c, err := net.Dial("unix", moved)
	if err != nil {
		t.Fatalf("control: the moved socket from outside: %v", err)
	}
	c.Close()
	// The agent's next command, right after (the cached walk).
	if r := probeIn(t, s, "unix-connect", moved); r.ExitCode != 1 {
		t.Errorf("the host's socket moved by the agent's previous command was reached within the walk's 2 s reuse: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	// Control: a fresh walk finds it at the new path.
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", moved); r.ExitCode != 1 {
		t.Errorf("control: with a fresh walk the moved socket was reached: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
}

package sandbox

import (
	"net"
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// listenInPrivateMountNS binds a listening unix socket the way a service
// in a mount namespace of its own (a container on the host's network, a
// systemd unit with BindPaths=/RootDirectory=) does: on a thread that has
// unshared its mount namespace, hostDir is bound at viewDir and the socket
// bound at viewDir/name. The kernel's socket list (/proc/net/unix,
// NETLINK_SOCK_DIAG) names viewDir/name, a path that, in the host's mount
// namespace, holds nothing; the socket file itself lies at hostDir/name.
// The listener accepts until the test ends and counts nothing: a
// connection that succeeds is the finding.
func listenInPrivateMountNS(t *testing.T, hostDir, viewDir, name string) {
	t.Helper()
	listenOnOwnThread(t, "the service in its own mount namespace", viewDir+"/"+name, func() error {
		if err := unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_FS); err != nil {
			return err
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return err
		}
		return unix.Mount(hostDir, viewDir, "", unix.MS_BIND, "")
	})
}

// listenOnOwnThread binds a listening unix socket at path (mode 0777) on a
// thread of its own after enter has changed that thread's view of the file
// systems (its mount namespace, its root); the thread is never unlocked and
// ends with its goroutine. The listener answers every connection until the
// test ends.
func listenOnOwnThread(t *testing.T, what, path string, enter func() error) {
	t.Helper()
	type res struct {
		ln  *net.UnixListener
		err error
	}
	ready := make(chan res, 1)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		runtime.LockOSThread()
		if err := enter(); err != nil {
			ready <- res{err: err}
			return
		}
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err == nil {
			if err = os.Chmod(path, 0o777); err != nil {
				ln.Close()
			}
		}
		if err != nil {
			ready <- res{err: err}
			return
		}
		ready <- res{ln: ln}
		<-done
		ln.Close()
	}()
	r := <-ready
	if r.err != nil {
		t.Fatalf("%s: %v", what, r.err)
	}
	go func() {
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("host service\n"))
			c.Close()
		}
	}()
}

// TestAttack6SocketBoundInAnotherMountNamespaceReachable (fixed:
// foreignSocketPaths finds such a listener's file through a mount namespace
// where its name leads to it, and masks it where it lies here): host sockets
// were
// masked in a command's view at the path the kernel's list of sockets gives
// for them (rootview.go: maskSocket of sp.HostSockets), and only in the
// writable roots is a socket file matched to its listener by inode. A
// service that runs in a mount namespace of its own but shares the host's
// network namespace — a container started with the host's network and a
// volume, a systemd unit with BindPaths= or RootDirectory= — binds its
// socket at a path of its own view (here /…/container-view/svc.sock); the
// list names that path, which holds nothing in the host's view, so nothing
// is masked, while the socket file sits on the host at the volume's path
// (/…/volume/svc.sock). A supervised command connects to it there (Landlock
// ABI 7 does not govern connect, the root view is read-only, which does not
// stop connect either): it reaches the host's service, which acts on its
// requests. This is not among the documented limits (a socket bound at a
// relative path, renamed after binding, bound in another network
// namespace, or reached through a hard link).
//
// Controls: the host reaches the service at the volume's path; a socket the
// host binds in its own mount namespace, in the same directory tree, is
// masked (refused) in the command's view.
func TestAttack6SocketBoundInAnotherMountNamespaceReachable(t *testing.T) {
	f := requireKernel(t, true)
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the test's service a mount namespace of its own")
	}
	base := visibleWorkspace(t) // under /var/tmp: /tmp is hidden from the command
	volume, view, direct := base+"/volume", base+"/container-view", base+"/direct"
	for _, d := range []string{volume, view, direct} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	listenInPrivateMountNS(t, volume, view, "svc.sock")
	hostListener(t, direct+"/host.sock")
	if err := os.Chmod(direct+"/host.sock", 0o777); err != nil {
		t.Fatal(err)
	}

	// Control: the host reaches the service at the volume's path.
	c, err := net.Dial("unix", volume+"/svc.sock")
	if err != nil {
		t.Fatalf("control: the service from the host: %v", err)
	}
	c.Close()

	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeSupervised, ws, f.Kernel, filepathDir(testExe(t)))
	forgetWalks()
	// Control: a socket bound by the host in its own mount namespace is
	// masked where it lies.
	if r := probeIn(t, s, "unix-connect", direct+"/host.sock"); r.ExitCode != 1 {
		t.Fatalf("control: the host's own socket was reached from the sandbox: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	// The attack: the service's socket, listed at a path that is empty in
	// the host's view, is connectable at the path its file lies at.
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", volume+"/svc.sock"); r.ExitCode != 1 {
		t.Errorf("a host service listening in a mount namespace of its own (same network namespace) was reached from a supervised command at %s/svc.sock: exit %d %s %s",
			volume, r.ExitCode, r.Stdout, r.Stderr)
	}
}

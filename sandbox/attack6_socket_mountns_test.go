package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// listenInPrivateMountNS binds a listening unix socket the way a service
// in a mount namespace of its own (a container on the host's network, a
// systemd unit with BindPaths=/RootDirectory=) does: a process in a mount
// namespace of its own binds hostDir at viewDir and the socket at
// viewDir/name. The kernel's socket list (/proc/net/unix,
// NETLINK_SOCK_DIAG) names viewDir/name, a path that, in the host's mount
// namespace, holds nothing; the socket file itself lies at hostDir/name.
// The listener accepts until the test ends and counts nothing: a
// connection that succeeds is the finding.
func listenInPrivateMountNS(t *testing.T, hostDir, viewDir, name string) {
	t.Helper()
	listenInProcess(t, &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS}, "mountns", hostDir, viewDir, viewDir+"/"+name)
}

// listenArg runs the test binary as a host service for the socket tests:
// "mountns HOSTDIR VIEWDIR PATH" (started in a mount namespace of its own:
// HOSTDIR is bound at VIEWDIR first) or "chroot JAIL PATH" (a thread
// chrooted into JAIL binds it). It binds a listening unix socket at PATH
// (mode 0777), prints "ready", answers every connection and exits when its
// standard input closes. A process of its own: a test binary whose thread
// changed its root or namespace would leave /proc/self changed for the
// tests that run after it (when that thread is the main one, the runtime
// keeps it).
const listenArg = "__sandbox-test-listen"

func init() {
	if len(os.Args) > 3 && os.Args[1] == listenArg {
		os.Exit(runListener(os.Args[2], os.Args[3:]))
	}
}

func runListener(kind string, args []string) int {
	runtime.LockOSThread()
	var err error
	switch {
	case kind == "mountns" && len(args) == 3:
		if err = unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err == nil {
			err = unix.Mount(args[0], args[1], "", unix.MS_BIND, "")
		}
	case kind == "chroot" && len(args) == 2:
		if err = unix.Unshare(unix.CLONE_FS); err == nil {
			err = unix.Chroot(args[0])
		}
	default:
		err = fmt.Errorf("usage: %s mountns HOSTDIR VIEWDIR PATH | chroot JAIL PATH", listenArg)
	}
	path := args[len(args)-1]
	var ln *net.UnixListener
	if err == nil {
		ln, err = net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	}
	if err == nil {
		err = os.Chmod(path, 0o777)
	}
	if err != nil {
		fmt.Println("refused:", err)
		return 1
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("host service\n"))
			c.Close()
		}
	}()
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// listenInProcess starts the test binary as a listening host service
// (listenArg) with attr, and ends it when the test ends.
func listenInProcess(t *testing.T, attr *syscall.SysProcAttr, kind string, args ...string) {
	t.Helper()
	cmd := exec.Command(testExe(t), append([]string{listenArg, kind}, args...)...)
	cmd.SysProcAttr = attr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the %s service: %q", kind, line)
	}
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
	expectForeignSocketMasked(t, f.Kernel, direct, volume+"/svc.sock",
		"a host service listening in a mount namespace of its own (same network namespace)")
}

// expectForeignSocketMasked checks a host service's socket file at svc,
// bound where its listed name does not lead to it: the host reaches it
// there (control), a socket the host binds in its own mount namespace at
// direct/host.sock is refused to a supervised command (control), and so is
// svc (what: the service, for the failure).
func expectForeignSocketMasked(t *testing.T, f domain.KernelFeatures, direct, svc, what string) {
	t.Helper()
	hostListener(t, direct+"/host.sock")
	if err := os.Chmod(direct+"/host.sock", 0o777); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", svc)
	if err != nil {
		t.Fatalf("control: the service from the host: %v", err)
	}
	c.Close()

	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeSupervised, ws, f, filepathDir(testExe(t)))
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", direct+"/host.sock"); r.ExitCode != 1 {
		t.Fatalf("control: the host's own socket was reached from the sandbox: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", svc); r.ExitCode != 1 {
		t.Errorf("%s was reached from a supervised command at %s: exit %d %s %s", what, svc, r.ExitCode, r.Stdout, r.Stderr)
	}
}

package sandbox

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// probeCmd returns argv running the test binary as probe program kind.
func probeCmd(t *testing.T, kind string, args ...string) []string {
	return append([]string{testExe(t), testProbeArg, kind}, args...)
}

// netSnapshots returns a restricted (supervised) and an unrestricted
// (full_access) snapshot over a fresh workspace; the test binary's directory
// is a read root so that probe programs can run inside.
func netSnapshots(t *testing.T, f Features) (ws string, restricted, open *domain.TurnExecutionSecuritySnapshot) {
	ws = tempWorkspace(t)
	exeDir := filepathDir(testExe(t))
	return ws, snapshotFor(t, domain.ModeSupervised, ws, f.Kernel, exeDir), snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
}

func filepathDir(p string) string { return p[:strings.LastIndex(p, "/")] }

// TestEnforceNetwork: with the network disabled, TCP to a local listener,
// UDP to a local receiver (which receives nothing), IPv6, raw, MPTCP,
// netlink, packet and vsock sockets and io_uring all fail, while AF_UNIX
// works. The same probes reach the listener and receiver from an
// unrestricted snapshot, so the refusals come from the sandbox.
func TestEnforceNetwork(t *testing.T) {
	f := requireKernel(t, false)
	ws, restricted, open := netSnapshots(t, f)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpPort := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	udpPort := strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port)
	unixLn, err := net.Listen("unix", ws+"/sock")
	if err != nil {
		t.Fatal(err)
	}
	defer unixLn.Close()

	probe := func(s *domain.TurnExecutionSecuritySnapshot, kind string, args ...string) *Result {
		t.Helper()
		r, err := run(t, s, SpawnRequest{Argv: probeCmd(t, kind, args...)}, nil)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		return r
	}
	// Nothing may be queued: the probe has exited and loopback delivery is
	// synchronous, so a non-blocking accept/receive sees any connection or
	// datagram the probe managed to send.
	accepted := func() bool {
		rc, err := ln.(*net.TCPListener).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		got := false
		rc.Control(func(fd uintptr) {
			if nfd, _, err := unix.Accept4(int(fd), unix.SOCK_CLOEXEC); err == nil {
				unix.Close(nfd)
				got = true
			}
		})
		return got
	}
	received := func() bool {
		rc, err := udp.(*net.UDPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		got := false
		rc.Control(func(fd uintptr) {
			if n, _, err := unix.Recvfrom(int(fd), make([]byte, 64), unix.MSG_DONTWAIT); err == nil && n > 0 {
				got = true
			}
		})
		return got
	}

	for _, c := range []struct{ kind, arg string }{
		{"tcp-connect", tcpPort}, {"udp-send", udpPort}, {"udp6", ""}, {"raw", ""}, {"mptcp", ""},
		{"netlink", ""}, {"packet", ""}, {"vsock", ""}, {"io_uring", ""},
	} {
		r := probe(restricted, c.kind, c.arg)
		if r.ExitCode != 1 || !strings.Contains(string(r.Stdout), "refused") {
			t.Errorf("%s under the sandbox: exit %d, %s %s", c.kind, r.ExitCode, r.Stdout, r.Stderr)
		}
	}
	if accepted() {
		t.Error("the TCP listener accepted a connection from the sandbox")
	}
	if received() {
		t.Error("the UDP receiver got a datagram from the sandbox")
	}
	if r := probe(restricted, "unix-pair"); r.ExitCode != 0 {
		t.Errorf("unix-pair under the sandbox: %s %s", r.Stdout, r.Stderr)
	}
	// A socket the host created is a host daemon (sockets_test.go).
	if r := probe(restricted, "unix-connect", ws+"/sock"); r.ExitCode != 1 {
		t.Errorf("unix-connect to a host socket under the sandbox: %s %s", r.Stdout, r.Stderr)
	}
	// Control: unrestricted, the same probes get through.
	if r := probe(open, "tcp-connect", tcpPort); r.ExitCode != 0 || !accepted() {
		t.Errorf("control tcp-connect: %s %s", r.Stdout, r.Stderr)
	}
	if r := probe(open, "udp-send", udpPort); r.ExitCode != 0 || !received() {
		t.Errorf("control udp-send: %s %s", r.Stdout, r.Stderr)
	}
}

// TestEnforceProcess: secrets of the server's environment are absent (PATH
// is present), the server's /proc/PID/environ cannot be read, no capability
// is left, no_new_privs and seccomp are set, and signals cannot leave the
// sandbox.
func TestEnforceProcess(t *testing.T) {
	f := requireKernel(t, false)
	t.Setenv("MY_API_TOKEN", "tok-s3cret-value")
	_, restricted, _ := netSnapshots(t, f)
	r := sh(t, restricted, "env")
	if strings.Contains(string(r.Stdout), "MY_API_TOKEN") || strings.Contains(string(r.Stdout), "tok-s3cret-value") ||
		!strings.Contains(string(r.Stdout), "PATH=") {
		t.Fatalf("child environment:\n%s", r.Stdout)
	}
	pid := strconv.Itoa(os.Getpid())
	if r := sh(t, restricted, "cat /proc/"+pid+"/environ"); r.ExitCode == 0 || strings.Contains(string(r.Stdout), "tok-s3cret-value") {
		t.Fatalf("read the server's environ: exit %d", r.ExitCode)
	}
	r = sh(t, restricted, "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status")
	want := map[string]string{"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
		"CapBnd": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2"}
	for _, line := range strings.Split(strings.TrimSpace(string(r.Stdout)), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if w, ok := want[k]; ok && strings.TrimSpace(v) != w {
			t.Errorf("%s = %s, want %s", k, strings.TrimSpace(v), w)
		}
		delete(want, k)
	}
	if len(want) > 0 {
		t.Errorf("missing status lines %v in %s", want, r.Stdout)
	}
	// Landlock scoping (ABI 6+): no signal to a process outside.
	if f.Kernel.LandlockABI >= 6 {
		rr, err := run(t, restricted, SpawnRequest{Argv: probeCmd(t, "signal", pid)}, nil)
		if err != nil || rr.ExitCode != 1 {
			t.Fatalf("signal to the server: %v %+v %s", err, rr, rr.Stdout)
		}
	}
}

// TestRunNotFound: an unknown command exits 127 without a sandbox error.
func TestRunNotFound(t *testing.T) {
	f := requireKernel(t, false)
	_, restricted, open := netSnapshots(t, f)
	for _, s := range []*domain.TurnExecutionSecuritySnapshot{restricted, open} {
		r, err := run(t, s, SpawnRequest{Argv: []string{"turnstile-no-such-command"}}, nil)
		if err != nil || r.ExitCode != ExitCommandNotFound || !strings.Contains(string(r.Stderr), "not found") {
			t.Fatalf("got %+v, %v", r, err)
		}
	}
}

// TestEnforceForeignABI: on amd64, an x32 system call is refused by the
// filter with EPERM (outside it, the kernel answers ENOSYS or runs it).
func TestEnforceForeignABI(t *testing.T) {
	f := requireKernel(t, false)
	if a, _ := nativeSeccompArch(); a.foreignBit == 0 {
		t.Skip("no x32 ABI on this architecture")
	}
	_, restricted, open := netSnapshots(t, f)
	r, err := run(t, restricted, SpawnRequest{Argv: probeCmd(t, "x32")}, nil)
	if err != nil || r.ExitCode != 1 || !strings.Contains(string(r.Stdout), unix.EPERM.Error()) {
		t.Fatalf("x32 under the sandbox: %v %s", err, r.Stdout)
	}
	r, err = run(t, open, SpawnRequest{Argv: probeCmd(t, "x32")}, nil)
	if err != nil || strings.Contains(string(r.Stdout), unix.EPERM.Error()) {
		t.Fatalf("x32 unconfined: %v %s", err, r.Stdout)
	}
}

// TestLandlockAloneIsNotEnough shows why the seccomp filter exists: with
// Landlock's TCP rules alone (seccomp switched off in the plan), TCP connect
// is refused but UDP and MPTCP still reach local listeners.
func TestLandlockAloneIsNotEnough(t *testing.T) {
	f := requireKernel(t, false)
	if f.Kernel.LandlockABI < 4 {
		missingPrerequisite(t, "no Landlock TCP rules before ABI 4 (the kernel has ABI %d)", f.Kernel.LandlockABI)
	}
	_, restricted, _ := netSnapshots(t, f)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
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
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpPort := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	udpPort := strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port)
	// Without seccomp; and in the host's network namespace (a command that
	// may use the host's unix sockets keeps it), where the UDP and TCP
	// listeners above are reachable but for Landlock.
	noSeccomp := func(p *Plan) { p.Sandbox.Seccomp, p.Sandbox.AllowUnixSockets = false, true }
	probe := func(kind, arg string) *Result {
		t.Helper()
		r, err := run(t, restricted, SpawnRequest{Argv: probeCmd(t, kind, arg)}, noSeccomp)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := probe("tcp-connect", tcpPort); r.ExitCode != 1 || !strings.Contains(string(r.Stdout), unix.EACCES.Error()) {
		t.Fatalf("Landlock did not refuse TCP connect: %s", r.Stdout)
	}
	if r := probe("udp-send", udpPort); r.ExitCode != 0 {
		t.Fatalf("expected UDP to pass Landlock alone: %s", r.Stdout)
	}
	if r := probe("mptcp-connect", tcpPort); r.ExitCode != 0 {
		if strings.Contains(string(r.Stdout), "socket:") {
			t.Logf("MPTCP unavailable on this kernel: %s", r.Stdout)
		} else {
			t.Fatalf("expected MPTCP to bypass Landlock's TCP rules: %s", r.Stdout)
		}
	}
}

// TestEnforceNetworkOnly: an unrestricted filesystem with a disabled network
// (a task cap narrowing only the network) still refuses IP sockets, while
// writes anywhere the user may write keep working.
func TestEnforceNetworkOnly(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
	s.Network = domain.NetworkPolicy{Mode: domain.NetworkDisabled, AllowUnixSockets: true}
	s.Enforcement = domain.ComputeEnforcement(s)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r, err := run(t, s, SpawnRequest{Argv: probeCmd(t, "tcp-connect", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))}, func(p *Plan) {
		if !p.Sandboxed || p.Sandbox.RestrictFilesystem || !p.Sandbox.RestrictNetwork {
			t.Fatalf("plan %+v", p.Sandbox)
		}
	})
	if err != nil || r.ExitCode != 1 {
		t.Fatalf("tcp-connect: %v %s", err, r.Stdout)
	}
	outside := tempWorkspace(t) + "/x"
	if r := sh(t, s, "echo x > "+outside); r.ExitCode != 0 || !exists(outside) {
		t.Fatalf("write with an unrestricted filesystem: %s", r.Stderr)
	}
}

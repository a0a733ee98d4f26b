package egress

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
	"turnstile/sandbox"
)

const probeArg = "__egress-test-probe"

// TestMain lets the test binary act as the sandbox helper and as the probe
// program the isolation test runs inside the sandbox.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if len(os.Args) > 2 && os.Args[1] == probeArg {
		os.Exit(runProbe(os.Args[2], os.Args[3:]))
	}
	code := m.Run()
	sandbox.WaitCleanup() // the last commands' temp dirs (sandbox's TestMain)
	os.Exit(code)
}

// runProbe tries one way out and prints "reached" or the error; exit 0
// only when it reached the target.
func runProbe(kind string, args []string) int {
	var err error
	switch kind {
	case "tcp":
		var c net.Conn
		if c, err = net.DialTimeout("tcp", args[0], 3*time.Second); err == nil {
			c.Close()
		}
	case "udp":
		var c net.Conn
		if c, err = net.Dial("udp", args[0]); err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			if _, err = c.Write([]byte("ping")); err == nil {
				_, err = c.Read(make([]byte, 4))
			}
			c.Close()
		}
	case "raw":
		var fd int
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP); err == nil {
			unix.Close(fd)
		}
	case "mptcp":
		var fd int
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 262); err == nil {
			unix.Close(fd)
		}
	default:
		err = fmt.Errorf("unknown probe %q", kind)
	}
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("reached")
	return 0
}

// hostServers starts what a command might try to reach directly: a TCP
// server that greets (IPv4 and IPv6 loopback) and a UDP echo server.
func hostServers(t *testing.T) (tcp4, tcp6, udp string) {
	greet := func(ln net.Listener) {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello"))
			c.Close()
		}
	}
	l4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l4.Close() })
	go greet(l4)
	l6, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Fatalf("IPv6 loopback is needed for the IPv6 probe: %v", err)
	}
	t.Cleanup(func() { l6.Close() })
	go greet(l6)
	u, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	go func() {
		b := make([]byte, 64)
		for {
			n, a, err := u.ReadFrom(b)
			if err != nil {
				return
			}
			u.WriteTo(b[:n], a)
		}
	}()
	return l4.Addr().String(), l6.Addr().String(), u.LocalAddr().String()
}

// sandboxSnapshot is a supervised snapshot whose network is restricted to
// np (the test binary's directory readable, so that probes run).
func sandboxSnapshot(t *testing.T, mode domain.Mode, np *domain.NetworkPolicy) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	f := sandbox.Probe()
	if f.Kernel.LandlockABI < 4 || !f.Kernel.Seccomp || !f.Kernel.UserNamespaces || os.Geteuid() != 0 {
		msg := fmt.Sprintf("needs root, Landlock ABI 4+, seccomp and namespaces: %s; %s; %s", f.LandlockDetail, f.SeccompDetail, f.UserNamespacesDetail)
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: " + msg)
		}
		t.Skip(msg)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: mode}, domain.SourceComposer),
		Cwd:     ws, WorkspaceRoot: ws, AppReadRoots: []string{filepath.Dir(exe)}, Kernel: f.Kernel,
	})
	if err != nil {
		t.Fatal(err)
	}
	if np != nil {
		s.Network = *np
	}
	return &s
}

// runIn plans and runs argv under s, through the proxy when p is set.
func runIn(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, p *Proxy, turnID string, argv ...string) *sandbox.Result {
	t.Helper()
	plan, err := sandbox.PlanSpawn(s, sandbox.SpawnRequest{Argv: argv, TimeoutMs: 20000}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if p != nil {
		if err := plan.UseEgress(p.Attach(turnID)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := sandbox.Run(context.Background(), plan)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return res
}

// TestSandboxReachesOnlyTheProxy: a restricted command whose snapshot
// grants network reaches an allowed loopback origin with curl through the
// proxy (HTTP and, through CONNECT, HTTPS), gets 403 for an origin the
// snapshot does not allow, and reaches nothing directly: TCP to the host's
// loopback (the allowed origin's own port and another), IPv6, UDP, raw and
// MPTCP sockets and curl with the proxy switched off all fail. The same
// probes from an unrestricted snapshot reach their targets, so each
// refusal comes from the sandbox.
func TestSandboxReachesOnlyTheProxy(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and curl is missing")
		}
		t.Skip("curl is missing")
	}
	tcp4, tcp6, udp := hostServers(t)
	_, allowed := origin(t, "allowed-origin")
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("tls-origin")) }))
	t.Cleanup(tlsSrv.Close)
	tlsAddr := tlsSrv.Listener.Addr().String()
	_, other := origin(t, "other-origin")
	np := &domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true,
		AllowedDomains: []string{"=http://" + allowed, "=https://" + tlsAddr}}
	s := sandboxSnapshot(t, domain.ModeSupervised, np)
	j := newSnapJudge()
	j.set("t", *np)
	p := NewProxy(j, &mapResolver{})
	exe, _ := os.Executable()

	out := func(r *sandbox.Result) string { return strings.TrimSpace(string(r.Stdout) + string(r.Stderr)) }
	if r := runIn(t, s, p, "t", curl, "-sS", "--max-time", "10", "http://"+allowed+"/"); r.ExitCode != 0 || string(r.Stdout) != "allowed-origin" {
		t.Fatalf("curl through the proxy to the allowed origin: exit %d %q", r.ExitCode, out(r))
	}
	if r := runIn(t, s, p, "t", curl, "-sS", "-k", "--max-time", "10", "https://"+tlsAddr+"/"); r.ExitCode != 0 || string(r.Stdout) != "tls-origin" {
		t.Fatalf("curl https (CONNECT) through the proxy: exit %d %q", r.ExitCode, out(r))
	}
	if r := runIn(t, s, p, "t", curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "http://"+other+"/"); string(r.Stdout) != "403" {
		t.Fatalf("curl to an origin the snapshot does not allow: exit %d %q, want 403", r.ExitCode, out(r))
	}
	if r := runIn(t, s, p, "t", curl, "-sS", "--noproxy", "*", "--max-time", "5", "http://"+allowed+"/"); r.ExitCode == 0 {
		t.Fatalf("curl straight to the allowed origin, bypassing the proxy, worked: %q", out(r))
	}
	probes := [][]string{{"tcp", allowed}, {"tcp", tcp4}, {"tcp", tcp6}, {"udp", udp}, {"raw"}, {"mptcp"}}
	for _, pr := range probes {
		r := runIn(t, s, p, "t", append([]string{exe, probeArg}, pr...)...)
		t.Logf("sandboxed probe %v: %s", pr, out(r))
		if r.ExitCode == 0 || !strings.HasPrefix(out(r), "error:") {
			t.Errorf("sandboxed probe %v: exit %d %q, want a failure", pr, r.ExitCode, out(r))
		}
	}
	open := sandboxSnapshot(t, domain.ModeFullAccess, nil)
	for _, pr := range probes {
		if r := runIn(t, open, nil, "", append([]string{exe, probeArg}, pr...)...); r.ExitCode != 0 {
			t.Errorf("unrestricted probe %v (control): exit %d %q", pr, r.ExitCode, out(r))
		}
	}
}

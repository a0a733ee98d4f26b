package peeruid

import (
	"bufio"
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A listener of another user: the test binary re-run as uid 65534, which
// listens on the address in PEERUID_LISTEN, prints it, and accepts until
// its stdin closes.
func TestMain(m *testing.M) {
	if addr := os.Getenv("PEERUID_LISTEN"); addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(l.Addr().String() + "\n")
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				defer c.Close()
			}
		}()
		_, _ = os.Stdin.Read(make([]byte, 1))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// listenAs starts a listener owned by uid on addr and returns its address.
func listenAs(t *testing.T, uid uint32, addr string) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to listen as another user")
	}
	cmd := exec.Command(readableCopy(t), "-test.run=^$")
	cmd.Env = append(os.Environ(), "PEERUID_LISTEN="+addr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
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
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		t.Fatalf("listener as uid %d: %q %v", uid, line, err)
	}
	return strings.TrimSpace(line)
}

// readableCopy is the test binary where another user may run it.
func readableCopy(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "peeruid")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "peeruid.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestOfNamesTheListenersOwner(t *testing.T) {
	addrs := []string{"127.0.0.1:0", "[::1]:0", "127.0.0.2:0"}
	// An address of one of this machine's interfaces, where any user may
	// listen too.
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, ia := range ifaddrs {
		if n, ok := ia.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			addrs = append(addrs, net.JoinHostPort(n.IP.String(), "0"))
			break
		}
	}
	for _, addr := range addrs {
		// Another user's listener: its uid, not ours.
		other := listenAs(t, 65534, addr)
		c, err := net.Dial("tcp", other)
		if err != nil {
			t.Fatal(err)
		}
		uid, err := Of(c)
		c.Close()
		if err != nil || uid != 65534 {
			t.Errorf("%s, listener of uid 65534: Of = %d, %v", addr, uid, err)
		}
		// Control: our own listener, on the same kind of address, is ours.
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				defer c.Close()
				_, _ = c.Read(make([]byte, 1))
			}
		}()
		c, err = net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		uid, err = Of(c)
		c.Close()
		if err != nil || uid != uint32(os.Getuid()) {
			t.Errorf("%s, our listener: Of = %d, %v; want %d", addr, uid, err, os.Getuid())
		}
	}
}

// A dual-stack listener accepts an IPv4 connection on an IPv6 socket.
func TestOfDualStackListener(t *testing.T) {
	other := listenAs(t, 65534, "[::]:0")
	_, port, _ := net.SplitHostPort(other)
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if uid, err := Of(c); err != nil || uid != 65534 {
		t.Errorf("IPv4 to a [::] listener of uid 65534: Of = %d, %v", uid, err)
	}
}

func TestLookupRefusesWhatItCannotKnow(t *testing.T) {
	// Not this machine's: no owner here to ask for.
	if mine, err := IsLocal(netip.MustParseAddr("198.51.100.7")); mine || err != nil {
		t.Errorf("IsLocal(198.51.100.7) = %v, %v", mine, err)
	}
	if mine, err := IsLocal(netip.MustParseAddr("::ffff:127.0.0.1")); !mine || err != nil {
		t.Errorf("IsLocal(::ffff:127.0.0.1) = %v, %v", mine, err)
	}
	// Nothing at the address: an error, never uid 0.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := l.Addr().(*net.TCPAddr).AddrPort()
	l.Close()
	if uid, err := Lookup(netip.MustParseAddrPort("127.0.0.1:40001"), free); err == nil {
		t.Errorf("no socket at %s: uid %d and no error", free, uid)
	}
	// A connection that is not TCP.
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := Of(a); !errors.Is(err, ErrNotLocal) {
		t.Errorf("a pipe: %v, want ErrNotLocal", err)
	}
}

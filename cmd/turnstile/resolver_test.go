package main

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/internal/dnstest"
)

// TestResolverIgnoresSearchDomains: with a search domain and ndots:5 (a
// Kubernetes resolv.conf), the resolver tries a name below each search
// domain before the name itself; the server's resolver looks a name with a
// dot up as the absolute name, so an allowed api.example.com does not
// resolve as api.example.com.corp.test. Controls, in the same namespace:
// the system resolver does take the search domain first (the setup is in
// force), and a short name without a dot keeps the search list. The test
// re-runs itself in a mount namespace of its own, with its resolv.conf
// bound over /etc/resolv.conf (root only).
func TestResolverIgnoresSearchDomains(t *testing.T) {
	if os.Getenv("TURNSTILE_TEST_RESOLV_CHILD") == "1" {
		resolverChild(t)
		return
	}
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: the resolver test needs root (a mount namespace)")
		}
		t.Skip("the resolver test needs root (a mount namespace)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestResolverIgnoresSearchDomains$", "-test.v")
	cmd.Env = append(os.Environ(), "TURNSTILE_TEST_RESOLV_CHILD=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestResolverIgnoresSearchDomains") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func resolverChild(t *testing.T) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		t.Fatal(err)
	}
	conf := t.TempDir() + "/resolv.conf"
	if err := os.WriteFile(conf, []byte("nameserver 127.0.0.1\nsearch corp.test\noptions ndots:5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(conf, "/etc/resolv.conf", "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	server := answerDNS(t, map[string]netip.Addr{
		"api.example.com.corp.test": netip.MustParseAddr("203.0.113.5"), // the search domain's answer
		"api.example.com":           netip.MustParseAddr("198.51.100.5"),
		"gitlab.corp.test":          netip.MustParseAddr("198.51.100.7"),
	})
	ctx := context.Background()
	lookup := func(r interface {
		LookupNetIP(context.Context, string, string) ([]netip.Addr, error)
	}, name string) []netip.Addr {
		addrs, err := r.LookupNetIP(ctx, "ip4", name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return addrs
	}
	plain := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}
	if got := lookup(plain, "api.example.com"); !slices.Contains(got, netip.MustParseAddr("203.0.113.5")) {
		t.Fatalf("control: the search domain is not in force here: %v", got)
	}
	r := newResolver(server)
	if got := lookup(r, "api.example.com"); !slices.Equal(got, []netip.Addr{netip.MustParseAddr("198.51.100.5")}) {
		t.Errorf("api.example.com resolved as %v; want 198.51.100.5, the name itself, not below the search domain", got)
	}
	if got := lookup(r, "gitlab"); !slices.Equal(got, []netip.Addr{netip.MustParseAddr("198.51.100.7")}) {
		t.Errorf("control: the short name gitlab resolved as %v; want the search domain's 198.51.100.7", got)
	}
}

// answerDNS answers A queries for the names in answers on a loopback UDP
// port (NXDOMAIN otherwise) and returns its address.
func answerDNS(t *testing.T, answers map[string]netip.Addr) string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	m := map[string][]netip.Addr{}
	for name, a := range answers {
		m[name] = []netip.Addr{a}
	}
	return dnstest.Serve(pc, m)
}

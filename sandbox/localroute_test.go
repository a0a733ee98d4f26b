package sandbox

import (
	"net"
	"net/netip"
	"testing"
)

// TestLocalRoute: the host's own addresses (loopback, and every address of
// its interfaces, read from /proc/net: the routing table's local entries)
// route locally; an address of another host does not.
func TestLocalRoute(t *testing.T) {
	local := []string{"127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"}
	local = append(local, interfaceAddrs(t)...)
	for _, s := range local {
		if ok, err := localRoute(netip.MustParseAddr(s)); err != nil || !ok {
			t.Errorf("%s: local %v, %v; want local", s, ok, err)
		}
	}
	for _, s := range []string{"8.8.8.8", "2001:4860:4860::8888", "203.0.113.9"} {
		if ok, err := localRoute(netip.MustParseAddr(s)); err != nil || ok {
			t.Errorf("%s: local %v, %v; want not local", s, ok, err)
		}
	}
}

// interfaceAddrs lists the addresses of this machine's interfaces.
func interfaceAddrs(t testing.TB) []string {
	ifas, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ifa := range ifas {
		if p, err := netip.ParsePrefix(ifa.String()); err == nil && !p.Addr().IsLinkLocalUnicast() {
			out = append(out, p.Addr().String())
		}
	}
	return out
}

// hostAddrOf returns an address of one of this machine's interfaces other
// than loopback (a missing prerequisite without one).
func hostAddrOf(t testing.TB) string {
	for _, a := range interfaceAddrs(t) {
		if ip := netip.MustParseAddr(a); !ip.IsLoopback() {
			return a
		}
	}
	missingPrerequisite(t, "this machine has no address on an interface other than loopback")
	return ""
}

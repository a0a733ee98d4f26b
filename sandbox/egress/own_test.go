package egress

import (
	"errors"
	"net"
	"net/netip"
	"testing"

	"turnstile/sandbox"
)

// TestOwnRefusal: the proxy refuses the server's own listeners on their
// port at their address, on loopback and the unspecified address, and, for
// a listener bound to every address, on the host's interface addresses;
// another port, or a remote address on the same port, is not refused.
func TestOwnRefusal(t *testing.T) {
	ifAddr := func() netip.Addr {
		as, err := net.InterfaceAddrs()
		if err != nil {
			t.Fatal(err)
		}
		for _, ia := range as {
			if n, ok := ia.(*net.IPNet); ok {
				if a, ok := netip.AddrFromSlice(n.IP); ok && !a.Unmap().IsLoopback() {
					return a.Unmap()
				}
			}
		}
		t.Skip("no interface address other than loopback")
		return netip.Addr{}
	}()
	loop := &Proxy{Own: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8740")}}
	every := &Proxy{Own: []netip.AddrPort{netip.MustParseAddrPort("0.0.0.0:8740")}}
	remote := netip.MustParseAddr("93.184.216.34")
	for _, c := range []struct {
		p       *Proxy
		a       netip.Addr
		port    int
		refused bool
	}{
		{loop, netip.MustParseAddr("127.0.0.1"), 8740, true},
		{loop, netip.MustParseAddr("127.0.0.2"), 8740, true},
		{loop, netip.MustParseAddr("::ffff:127.0.0.1"), 8740, true},
		{loop, netip.MustParseAddr("::1"), 8740, true},
		{loop, netip.MustParseAddr("0.0.0.0"), 8740, true},
		{every, ifAddr, 8740, true},
		{loop, netip.MustParseAddr("127.0.0.1"), 8741, false},
		{loop, remote, 8740, false},
		{every, remote, 8740, false},
		{&Proxy{}, netip.MustParseAddr("127.0.0.1"), 8740, false},
	} {
		err := c.p.ownRefusal("h", c.a, c.port)
		var r *sandbox.Refusal
		if got := errors.As(err, &r) && r.Code == sandbox.CodeGatewayAddress; got != c.refused {
			t.Errorf("own %v, %v:%d: refused %v (%v), want %v", c.p.Own, c.a, c.port, got, err, c.refused)
		}
	}
}

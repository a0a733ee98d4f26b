package egress

import (
	"fmt"
	"net"
	"net/netip"

	"turnstile/sandbox"
)

// ownRefusal refuses a, port when it reaches one of the server's own
// listeners (Own): the same port on the listener's address, on any
// loopback or unspecified address (0.0.0.0 and :: connect to the host
// itself), or, for a listener bound to every address, on any address of
// this host's interfaces.
func (p *Proxy) ownRefusal(host string, a netip.Addr, port int) error {
	a = a.Unmap()
	for _, o := range p.Own {
		if int(o.Port()) != port {
			continue
		}
		la := o.Addr().Unmap()
		if a == la || a.IsLoopback() || a.IsUnspecified() || (la.IsUnspecified() && localHostAddr(a)) {
			return &sandbox.Refusal{Code: sandbox.CodeGatewayAddress, Path: host,
				Message: fmt.Sprintf("%s is turnstile's own listener: the proxy never carries a connection to the gateway", netip.AddrPortFrom(a, uint16(port)))}
		}
	}
	return nil
}

// localHostAddr reports whether a is an address of one of this host's
// interfaces (an unreadable list counts every address as the host's).
func localHostAddr(a netip.Addr) bool {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, ia := range as {
		if n, ok := ia.(*net.IPNet); ok {
			if b, ok := netip.AddrFromSlice(n.IP); ok && b.Unmap() == a {
				return true
			}
		}
	}
	return false
}

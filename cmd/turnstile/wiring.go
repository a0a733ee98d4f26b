package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"turnstile/sandbox"
)

// netResolver adapts *net.Resolver to sandbox.HostResolver: a name that does
// not exist wraps sandbox.ErrHostNotFound. A name with a dot is looked up as
// the absolute name it is written as (rooted): the resolver's search list
// would otherwise try it below each search domain first wherever ndots
// exceeds its dots (ndots:5 in Kubernetes), and an allowed "example.com"
// could resolve as "example.com.<search domain>", whose answers the
// policy never named (an egress attack review). A name without a dot (a
// short host name the allow-list names) keeps the search list.
type netResolver struct{ r *net.Resolver }

func (n netResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	addrs, err := n.r.LookupNetIP(ctx, network, rootedName(host))
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		return nil, fmt.Errorf("%w: %v", sandbox.ErrHostNotFound, err)
	}
	return addrs, err
}

// rootedName is host with a final dot when it is a name with a dot and not
// rooted already (not an IP literal).
func rootedName(host string) string {
	if !strings.Contains(host, ".") || strings.HasSuffix(host, ".") {
		return host
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	return host + "."
}

// newResolver returns the system resolver, or with server ("host:port") a
// resolver that asks only that DNS server.
func newResolver(server string) sandbox.HostResolver {
	if server == "" {
		return netResolver{net.DefaultResolver}
	}
	return netResolver{&net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}}
}

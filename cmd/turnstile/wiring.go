package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"turnstile/sandbox"
)

// netResolver adapts *net.Resolver to sandbox.HostResolver: a name that does
// not exist wraps sandbox.ErrHostNotFound.
type netResolver struct{ r *net.Resolver }

func (n netResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	addrs, err := n.r.LookupNetIP(ctx, network, host)
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		return nil, fmt.Errorf("%w: %v", sandbox.ErrHostNotFound, err)
	}
	return addrs, err
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

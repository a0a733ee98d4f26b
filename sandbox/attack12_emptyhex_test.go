package sandbox

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"turnstile/domain"
)

// nxResolver answers every name as a DNS server does for one that does not
// exist.
type nxResolver struct{}

func (nxResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, fmt.Errorf("lookup %s: %w", host, ErrHostNotFound)
}

// TestAttack12EmptyHexIPv4Part: a URL host part "0x" is the number 0 to the
// WHATWG URL parser (Node's fetch and URL, Rust's url crate, which the
// runtimes that fetch for the agent use), so http://0x7f.0x.0x.1/ is
// 127.0.0.1 to them and http://0x/ is 0.0.0.0, the local host. The check
// read "0x" as no number, took the host for a name, found no such name in
// DNS and left it to the tool: a fetch of the local host was allowed where
// localhost is not. The control: the same notation naming a public address
// is allowed, and with allow_localhost the local one is too.
func TestAttack12EmptyHexIPv4Part(t *testing.T) {
	enabled := netSnapshot(domain.NetworkPolicy{Mode: domain.NetworkEnabled})
	withLocal := netSnapshot(domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true})
	for _, u := range []string{"http://0x7f.0x.0x.1/", "http://0x/", "http://0x.0x.0x.0x:8080/", "http://127.0x.0x.1/", "http://0x7f.1.0x/"} {
		wantCode(t, CheckURLResolved(context.Background(), enabled, u, nxResolver{}, 0), CodeLocalhostNotAllowed)
		wantCode(t, CheckURLResolved(context.Background(), withLocal, u, nxResolver{}, 0), "")
	}
	wantCode(t, CheckURLResolved(context.Background(), enabled, "http://0x5d.0x.0x.1/", nxResolver{}, 0), "")
}

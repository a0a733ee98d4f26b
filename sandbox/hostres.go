package sandbox

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"turnstile/domain"
)

// HostResolver looks a host name up. A name that does not exist is an error
// wrapping ErrHostNotFound. (The package does not import net: the sandbox
// helper links this package and stays lean; cmd adapts *net.Resolver.)
type HostResolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ErrHostNotFound is what a HostResolver wraps for a name that does not
// exist.
var ErrHostNotFound = errors.New("no such host")

// DefaultResolveTimeout bounds a decision-time lookup.
const DefaultResolveTimeout = 2 * time.Second

// CheckURLResolved is CheckURL, then, for a host name, the addresses the
// name resolves to (looked up within timeout) are each checked as a
// connection would be (CheckAddr): a name that resolves to a loopback,
// private, link-local or metadata address is refused as that address is. A
// name that does not exist is left to the tool (it cannot connect); a
// lookup that fails otherwise or times out is host_unresolved. This is a
// decision-time check: a name can still resolve differently when the tool
// connects, which only connect-time enforcement (Dialer, an egress proxy)
// stops.
func CheckURLResolved(ctx context.Context, s *domain.TurnExecutionSecuritySnapshot, rawURL string, r HostResolver, timeout time.Duration) error {
	if err := CheckURL(s, rawURL); err != nil {
		return err
	}
	t, rf := parseURLTarget(rawURL)
	if rf != nil {
		return rf
	}
	if t.Addr.IsValid() || r == nil {
		return nil // an IP literal was judged as such
	}
	if timeout <= 0 {
		timeout = DefaultResolveTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", t.Host)
	return checkURLAnswered(s, rawURL, addrs, err)
}

package sandbox

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"turnstile/domain"
)

type fixedResolver struct {
	addrs []netip.Addr
	err   error
}

func (r fixedResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r.addrs, r.err
}

// TestLookupFirstJudgesTheCallsOwnAnswer: a lookup made before the turn's
// lock answers whatever the caller's context (a caller that gave up does
// not make it fail), and the check under the lock judges that answer as
// CheckURLResolved judges its own: a private address refused, a name that
// does not exist left to the tool, another failure host_unresolved.
func TestLookupFirstJudgesTheCallsOwnAnswer(t *testing.T) {
	s := &domain.TurnExecutionSecuritySnapshot{Network: domain.NetworkPolicy{Mode: domain.NetworkEnabled}}
	c := DecisionChecker{Resolver: fixedResolver{addrs: []netip.Addr{netip.MustParseAddr("93.184.216.34")}}}
	host, pending := c.LookupPending(s, "https://docs.example.test/")
	if !pending || host != "docs.example.test" {
		t.Fatalf("LookupPending = %q %v", host, pending)
	}
	if _, pending := c.LookupPending(s, "https://93.184.216.34/"); pending {
		t.Error("an IP literal is to be looked up")
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	addrs, err := c.Lookup(gone, host)
	if err != nil || len(addrs) != 1 {
		t.Fatalf("a lookup whose caller gave up: %v %v", addrs, err)
	}
	if err := c.CheckURLLooked(s, "https://docs.example.test/", addrs, nil); err != nil {
		t.Errorf("control: a public address: %v", err)
	}
	var r CodedRefusal
	if err := c.CheckURLLooked(s, "https://docs.example.test/", []netip.Addr{netip.MustParseAddr("10.0.0.1")}, nil); !errors.As(err, &r) || r.Code != CodePrivateAddress {
		t.Errorf("a private address: %v", err)
	}
	if err := c.CheckURLLooked(s, "https://docs.example.test/", nil, ErrHostNotFound); err != nil {
		t.Errorf("a name that does not exist: %v", err)
	}
	if err := c.CheckURLLooked(s, "https://docs.example.test/", nil, context.DeadlineExceeded); !errors.As(err, &r) || r.Code != CodeHostUnresolved {
		t.Errorf("a lookup that timed out: %v", err)
	}
}

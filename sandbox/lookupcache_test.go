package sandbox

import (
	"context"
	"errors"
	"net/netip"
	"sync/atomic"
	"testing"
)

type countingResolver struct {
	n   atomic.Int32
	err error
}

func (r *countingResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	r.n.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, r.err
}

// TestLookupCacheKeepsAnswers: an answer, a failure too, is looked up once
// while it is fresh; a lookup its caller gave up is not kept.
func TestLookupCacheKeepsAnswers(t *testing.T) {
	r := &countingResolver{}
	c := &LookupCache{R: r}
	for range 3 {
		if a, err := c.LookupNetIP(context.Background(), "ip", "example.test"); err != nil || len(a) != 1 {
			t.Fatalf("lookup: %v %v", a, err)
		}
	}
	if got := r.n.Load(); got != 1 {
		t.Errorf("three lookups of one name reached the resolver %d times, want 1", got)
	}
	r.err = ErrHostNotFound
	for range 2 {
		if _, err := c.LookupNetIP(context.Background(), "ip", "missing.test"); !errors.Is(err, ErrHostNotFound) {
			t.Fatalf("a name that does not exist: %v", err)
		}
	}
	if got := r.n.Load(); got != 2 {
		t.Errorf("a failure was looked up %d times in all, want 2 (kept once)", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.LookupNetIP(ctx, "ip", "gave-up.test")
	r.err = nil
	if _, err := c.LookupNetIP(context.Background(), "ip", "gave-up.test"); err != nil {
		t.Errorf("a lookup whose caller gave up was kept: %v", err)
	}
}

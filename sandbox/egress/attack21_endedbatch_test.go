package egress

import (
	"fmt"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack21EndedTurnsKeepTheirBatches: the proxy keeps, per turn, the
// origins allowed under its snapshot version (batched), so that later
// connections record no new decision. The set is dropped only when a
// later decision of the same turn finds it ended; a turn that ends after
// its last connection keeps its set for the life of the server. A runtime
// starts turns, has each decide a few thousand origins through the proxy
// (names under a wildcard its allow-list names, each a decision within
// the byte quota, which the turn's end frees), ends it, and starts the
// next: the server's memory grows by every origin ever allowed, and never
// shrinks. Wanted: once the turn has ended (seen by the watch, the next
// flush, or a sweep) and its connections are closed, nothing of it is
// kept. Control: while the turn is live, its allowed origins are batched.
func TestAttack21EndedTurnsKeepTheirBatches(t *testing.T) {
	port := greeter(t, "tcp4", "127.0.0.1:0", "ok")
	const n = 200
	res := &mapResolver{m: map[string][]netip.Addr{}}
	for i := range n {
		res.m[fmt.Sprintf("o%d.example.test", i)] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	p.FlushEvery = 10 * time.Millisecond
	p.Recheck = 10 * time.Millisecond
	p.SweepEvery = 10 * time.Millisecond
	swept := make(chan struct{}, 1)
	p.swept = func() {
		select {
		case swept <- struct{}{}:
		default:
		}
	}
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))
	for i := range n {
		if code, _, body := get(t, c, fmt.Sprintf("http://o%d.example.test:%d/", i, port)); code != http.StatusOK || body != "ok" {
			t.Fatalf("control: GET of allowed origin %d: %d %q", i, code, body)
		}
	}
	batched := func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		if b := p.batched["t"]; b != nil {
			return len(b.allowed)
		}
		return 0
	}
	if got := batched(); got != n {
		t.Fatalf("control: %d origins batched for the live turn, want %d", got, n)
	}
	// The turn ends (its snapshot is gone: Snapshot answers an error).
	j.mu.Lock()
	delete(j.snaps, "t")
	j.mu.Unlock()
	// A sweep that began after the end drops the turn's batch: of the
	// sweeps that end after the signals sent before now are drained, the
	// first may have begun before the end, the second did not.
	select {
	case <-swept:
	default:
	}
	for i := 0; batched() != 0; i++ {
		if i == 2 {
			t.Fatalf("the turn ended with no connection open, and the proxy still holds its %d allowed origins after two sweeps (kept for the life of the server)", batched())
		}
		select {
		case <-swept:
		case <-time.After(10 * time.Second):
			t.Fatalf("no sweep of the batches, which hold %d origins of the ended turn", batched())
		}
	}
}

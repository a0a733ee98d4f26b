package egress

import (
	"fmt"
	"testing"
)

// TestBatchBounds: one turn's batch holds at most maxBatchOrigins origins
// (then starts over with the newest), and at most maxBatchedTurns turns
// have one (then one is dropped for the newest); an origin remembered
// within the bounds stays (the control).
func TestBatchBounds(t *testing.T) {
	p := NewProxy(newSnapJudge(), &mapResolver{})
	p.SweepEvery = 1 << 62 // no sweep during the test
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range maxBatchOrigins {
		p.remember("t", 1, fmt.Sprint("GET http://o", i))
	}
	if n := len(p.batched["t"].allowed); n != maxBatchOrigins || !p.batched["t"].allowed["GET http://o0"] {
		t.Fatalf("control: %d origins batched, want %d with the first", n, maxBatchOrigins)
	}
	p.remember("t", 1, "GET http://one-more")
	if b := p.batched["t"]; len(b.allowed) != 1 || !b.allowed["GET http://one-more"] {
		t.Fatalf("past the bound the batch holds %d origins, want the newest only", len(b.allowed))
	}
	for i := range maxBatchedTurns + 10 {
		p.remember(fmt.Sprint("turn-", i), 1, "GET http://x")
	}
	if n := len(p.batched); n != maxBatchedTurns {
		t.Fatalf("%d turns batched, want at most %d", n, maxBatchedTurns)
	}
	if !p.batched[fmt.Sprint("turn-", maxBatchedTurns+9)].allowed["GET http://x"] {
		t.Fatal("the newest turn's origin was not batched")
	}
}

package api_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"turnstile/api"
)

// TestRevSSEQuietTurnStreamsDoNotDelayOthers: docs/events.md says a
// ?turn_id= stream of a quiet turn "costs nothing per event", and is woken
// only when its turn has frames. Yet every such stream counts in the
// clients that stretch every other client's wake-up interval (100 µs x
// clients): one credential that opens 3,000 streams of turns that never
// get an event (an unscoped one may name any turn id) delays the delivery
// of every event to every other client by up to ~300 ms (20,000: 2 s).
// The control: the same latency measured with no quiet streams.
func TestRevSSEQuietTurnStreamsDoNotDelayOthers(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("t", 0, 1)
	// Eight live clients, one per wake cohort; their worst latency.
	latency := func(round int) time.Duration {
		var cs []*sseClient
		for range 8 {
			cs = append(cs, s.openSSE("turn_id=t&from=now", "", 0))
		}
		var worst time.Duration
		for i := range 5 {
			time.Sleep(400 * time.Millisecond) // a quiet spell: the next event goes out at once
			start := time.Now()
			s.decisions("t", 1+round*100+i, 1)
			var wg sync.WaitGroup
			var mu sync.Mutex
			for _, c := range cs {
				wg.Go(func() {
					if _, err := c.next(); err != nil {
						t.Error(err)
					}
					mu.Lock()
					worst = max(worst, time.Since(start))
					mu.Unlock()
				})
			}
			wg.Wait()
		}
		for _, c := range cs {
			c.resp.Body.Close()
		}
		return worst
	}
	base := latency(0)
	if base > 150*time.Millisecond {
		t.Fatalf("control: with no quiet streams an event took %v to reach every client", base)
	}
	for i := range 3000 {
		s.openSSE(fmt.Sprintf("turn_id=never-%d&from=now", i), "", 0)
	}
	if got := latency(1); got > 150*time.Millisecond {
		t.Fatalf("with 3,000 streams of quiet turns open, an event took %v to reach every other client (%v without them)", got, base)
	}
}

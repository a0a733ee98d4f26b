package api_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"turnstile/api"
)

// TestRevSSESlowTurnStreamCutOffAndResume (holds): a ?turn_id= stream that
// stops reading while its turn is busy is cut off with slow_consumer and
// the last event it was sent; resumed from there (same filter) it gets the
// rest of its turn exactly once. The control: a stream of the same turn
// that reads all along is not cut off.
func TestRevSSESlowTurnStreamCutOffAndResume(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 256, SSESlowGrace: time.Minute}, 8192)
	s.decisions("t", 0, 1)
	s.decisions("o", 0, 1)
	start := s.proj.Position()
	fast := s.openSSE("turn_id=t&from=now", "", 0)
	slow := s.openSSE("turn_id=t&from=now", "", 4096)
	fastIDs := make(chan string, 10000)
	go func() {
		defer close(fastIDs)
		for {
			f, err := fast.next()
			if err != nil {
				return
			}
			fastIDs <- f.id
		}
	}()
	n := 1
	for s.metric("turnstile_sse_slow_consumer_disconnects_total") == 0 {
		if n > 4000 {
			t.Fatal("never cut off")
		}
		s.decisions("t", n, 20)
		s.decisions("o", n, 5)
		n += 20
	}
	s.decisions("t", n, 10)
	want := s.turnPositionsOf(start, "t")
	last := want[len(want)-1]
	var got []string
	var reason *sseFrame
	for {
		f, err := slow.next()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.id == "" {
			reason = &f
			continue
		}
		got = append(got, f.id)
	}
	if reason == nil || !strings.Contains(reason.data, `"slow_consumer"`) || len(got) == 0 ||
		!strings.Contains(reason.data, `"last_event_id":"`+got[len(got)-1]+`"`) {
		t.Fatalf("cut off without a slow_consumer reason naming %v: %+v", got[max(0, len(got)-1):], reason)
	}
	rest, _ := s.openSSE("turn_id=t", got[len(got)-1], 0).until(t, last)
	equalIDs(t, "slow turn stream, cut then resumed", append(got, rest...), want)
	var ids []string
	for id := range fastIDs {
		ids = append(ids, id)
		if id == last {
			break
		}
	}
	equalIDs(t, "reading turn stream", ids, want)
}

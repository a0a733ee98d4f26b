package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"turnstile/domain/eventstore"
)

// TestSSEScanCountsAcrossChunks: the bench's stream reader counts every
// event (an "id: " line) and keeps the last one's position however the
// stream is cut into reads, a cut inside an id line, inside a long data
// line or at a newline; "id: " inside a data line is no event; and a slow
// consumer's close is seen.
func TestSSEScanCountsAcrossChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString(": turnstile events from 0\n\n")
	const events = 60
	for i := 1; i <= events; i++ {
		data := fmt.Sprintf(`{"type":"turn.decision_allowed","n":%d,"note":"id: not an event"}`, i)
		if i%7 == 0 {
			data = `{"pad":"` + strings.Repeat("x", 300+i) + `","s":"\nid: 1"}` // long, and an escaped newline
		}
		fmt.Fprintf(&b, "id: %s\nevent: turn\ndata: %s\n\n", eventstore.Position{Commit: uint64(i * 1000), Prepare: uint64(i * 1000)}, data)
		if i%9 == 0 {
			b.WriteString(": keep-alive\n\n")
		}
	}
	b.WriteString("event: error\ndata: {\"code\":\"slow_consumer\"}\n\n")
	stream := []byte(b.String())
	want := eventstore.Position{Commit: events * 1000, Prepare: events * 1000}
	check := func(name string, cuts []int) {
		t.Helper()
		var s sseScan
		sc := &sseCounter{}
		buf := make([]byte, sseRoom+len(stream))
		prev := 0
		for _, c := range append(cuts, len(stream)) {
			n := copy(buf[sseRoom:], stream[prev:c])
			s.feed(buf, n, sc)
			prev = c
		}
		if got := sc.events.Load(); got != events {
			t.Errorf("%s: %d events counted, want %d", name, got, events)
		}
		if p := sc.last.Load(); p == nil || *p != want {
			t.Errorf("%s: last position %v, want %v", name, p, want)
		}
		if !sc.cut.Load() {
			t.Errorf("%s: the slow consumer's close not seen", name)
		}
	}
	check("one read", nil)
	for i := 1; i < len(stream); i++ {
		check(fmt.Sprintf("cut at %d", i), []int{i})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 200 {
		var cuts []int
		for c := r.IntN(40) + 1; c < len(stream); c += r.IntN(200) + 1 {
			cuts = append(cuts, c)
		}
		check(fmt.Sprintf("random reads %d", k), cuts)
	}
}

package main

import (
	"testing"

	"turnstile/domain/eventstore"
)

// TestEventTallyCountsFromEachStreamsStart: a stream that joined the
// broadcast before the position the bench read first (the broadcast a
// moment behind the read models) gets the events in between, and is
// counted from where it started, not from the bench's position (CI saw
// "0 got every event of its turn" with clients 1 to 5 events over).
func TestEventTallyCountsFromEachStreamsStart(t *testing.T) {
	pos := func(n uint64) eventstore.Position { return eventstore.Position{Commit: n, Prepare: n} }
	var tally eventTally
	for i := uint64(1); i <= 10; i++ {
		turn := "a"
		if i%2 == 0 {
			turn = "b"
		}
		tally.events = append(tally.events, talliedEvent{pos(i * 10), turn})
	}
	for _, c := range []struct {
		from     uint64
		turn     string
		n        int
		lastPos  uint64
		describe string
	}{
		{0, "", 10, 100, "every event"},
		{30, "", 7, 100, "after the third, not including it"},
		{35, "", 7, 100, "between two events"},
		{30, "a", 3, 90, "turn a after the third"},
		{30, "b", 4, 100, "turn b after the third"},
		{100, "", 0, 0, "after the last"},
		{0, "c", 0, 0, "a turn with none"},
	} {
		n, last := tally.after(pos(c.from), c.turn)
		want := eventstore.Position{}
		if c.lastPos != 0 {
			want = pos(c.lastPos)
		}
		if n != c.n || last != want {
			t.Errorf("%s: after(%d, %q) = %d, %v; want %d, %v", c.describe, c.from, c.turn, n, last, c.n, want)
		}
	}
}

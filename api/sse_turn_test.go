package api_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"turnstile/api"
	"turnstile/domain/eventstore"
)

// turnPositionsOf lists the positions of turn id's events after from, from
// the store itself.
func (s *sseServer) turnPositionsOf(from eventstore.Position, id string) []string {
	s.t.Helper()
	return s.positionsWhere(from, func(stream string) bool { return stream == "turn-"+id })
}

// TestSSETurnStreamGetsItsTurnExactly: streams of one turn (?turn_id=), the
// broadcast queueing that turn's frames for them, get exactly that turn's
// events while three turns append concurrently: a live one from now, and
// ones resuming from earlier positions of the turn across the hand-over
// from the store to the broadcast. Nothing of the other turns, nothing lost
// or twice.
func TestSSETurnStreamGetsItsTurnExactly(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("seed", 0, 12)
	s.decisions("other", 0, 4)
	s.openSSE("from=now", "", 0) // the broadcaster runs before the appends
	seed := s.turnPositionsOf(eventstore.Start, "seed")
	now := s.proj.Position()
	live := s.openSSE("turn_id=seed&from=now", "", 0)

	var appenders sync.WaitGroup
	appenders.Go(func() { s.decisions("seed", 12, 40) })
	appenders.Go(func() { s.decisions("other", 4, 40) })
	appenders.Go(func() { s.decisions("third", 0, 40) })
	type resumed struct {
		from string
		c    *sseClient
	}
	var clients []resumed
	for i := range 8 {
		from := seed[(i*3)%len(seed)]
		clients = append(clients, resumed{from, s.openSSE("turn_id=seed", from, 0)})
		if cur := s.turnPositionsOf(eventstore.Start, "seed"); len(cur) > len(seed) {
			seed = cur // later clients resume from positions appended meanwhile
		}
	}
	appenders.Wait()
	if t.Failed() {
		return
	}
	// A stream that misses an event would wait for it forever: past a
	// minute the streams are closed, and the reads fail.
	watchdog := time.AfterFunc(time.Minute, func() {
		live.resp.Body.Close()
		for _, r := range clients {
			r.c.resp.Body.Close()
		}
	})
	defer watchdog.Stop()
	final := s.turnPositionsOf(eventstore.Start, "seed")
	last := final[len(final)-1]
	ids, _ := live.until(t, last)
	equalIDs(t, "live stream of the turn", ids, s.turnPositionsOf(now, "seed"))
	for i, r := range clients {
		ids, _ := r.c.until(t, last)
		p, _ := eventstore.ParsePosition(r.from)
		equalIDs(t, fmt.Sprintf("stream %d of the turn (from %s)", i, r.from), ids, s.turnPositionsOf(p, "seed"))
	}
}

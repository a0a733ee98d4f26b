package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

func subscribeCases() []testCase {
	return []testCase{
		{"SubscribeFromStart", testSubscribeFromStart},
		{"SubscribeFromPosition", testSubscribeFromPosition},
		{"SubscribePrefixFilter", testSubscribePrefix},
		{"SubscribeWhileAppending", testSubscribeWhileAppending},
		{"SubscribeSlowConsumer", testSubscribeSlowConsumer},
		{"SubscriptionContextAndClose", testSubscriptionContextAndClose},
	}
}

// subReader reads a subscription and checks, for every message, that event
// positions strictly increase, no event repeats, events match the prefix,
// and at most one CaughtUp arrives.
type subReader struct {
	f      *fixture
	sub    eventstore.Subscription
	prefix string
	last   eventstore.Position
	seen   map[uuid.UUID]bool
	// nextRev is the revision expected next for each stream seen so far;
	// from Start, this subtest's streams must begin at revision 0.
	nextRev   map[string]uint64
	fromStart bool
	// caughtUp counts CaughtUp messages.
	caughtUp int
}

func (f *fixture) subscribe(from eventstore.Position, prefix string) *subReader {
	f.t.Helper()
	sub, err := f.store.Subscribe(f.ctx, from, prefix)
	if err != nil {
		f.t.Fatalf("Subscribe(%s, %q): %v", from, prefix, err)
	}
	f.t.Cleanup(func() { _ = sub.Close() })
	return &subReader{
		f: f, sub: sub, prefix: prefix, last: from,
		seen: map[uuid.UUID]bool{}, nextRev: map[string]uint64{}, fromStart: from == eventstore.Start,
	}
}

// next returns the next message, failing the test on any error or broken
// ordering.
func (r *subReader) next() eventstore.Message {
	r.f.t.Helper()
	m, err := r.sub.Recv(r.f.ctx)
	if err != nil {
		r.f.t.Fatalf("Recv: %v", err)
	}
	if err := r.check(m); err != nil {
		r.f.t.Fatal(err)
	}
	return m
}

func (r *subReader) check(m eventstore.Message) error {
	if m.Event == nil {
		if !m.CaughtUp {
			return errors.New("subscription: a message with neither an event nor CaughtUp")
		}
		r.caughtUp++
		if r.caughtUp > 1 {
			return errors.New("subscription: a second CaughtUp")
		}
		return nil
	}
	e := m.Event
	if m.CaughtUp {
		return errors.New("subscription: a message with both an event and CaughtUp")
	}
	if !r.last.Less(e.Position) {
		return fmt.Errorf("subscription: event %s@%d at %s does not follow %s", e.Stream, e.Revision, e.Position, r.last)
	}
	if r.seen[e.ID] {
		return fmt.Errorf("subscription: event %s delivered twice", e.ID)
	}
	if !strings.HasPrefix(e.Stream, r.prefix) {
		return fmt.Errorf("subscription: event of stream %q outside the prefix %q", e.Stream, r.prefix)
	}
	if want, ok := r.nextRev[e.Stream]; ok || (r.fromStart && r.f.ours(e.Stream)) {
		if e.Revision != want {
			return fmt.Errorf("subscription: %s@%d, want revision %d (gap or reorder)", e.Stream, e.Revision, want)
		}
	}
	r.nextRev[e.Stream] = e.Revision + 1
	r.last = e.Position
	r.seen[e.ID] = true
	return nil
}

// untilCaughtUp returns this subtest's events delivered before CaughtUp.
func (r *subReader) untilCaughtUp() []eventstore.RecordedEvent {
	r.f.t.Helper()
	var out []eventstore.RecordedEvent
	for {
		m := r.next()
		if m.CaughtUp {
			return out
		}
		if r.f.ours(m.Event.Stream) {
			out = append(out, *m.Event)
		}
	}
}

// take returns the next n events of this subtest.
func (r *subReader) take(n int) []eventstore.RecordedEvent {
	r.f.t.Helper()
	var out []eventstore.RecordedEvent
	for len(out) < n {
		m := r.next()
		if m.Event != nil && r.f.ours(m.Event.Stream) {
			out = append(out, *m.Event)
		}
	}
	return out
}

// takeUntil returns this subtest's events delivered before the event with
// id marker (which is not returned). Appending a marker after the events a
// test waits for turns a lost event into a failure rather than a hang.
func (r *subReader) takeUntil(marker uuid.UUID) []eventstore.RecordedEvent {
	r.f.t.Helper()
	var out []eventstore.RecordedEvent
	for {
		m := r.next()
		if m.Event == nil || !r.f.ours(m.Event.Stream) {
			continue
		}
		if m.Event.ID == marker {
			return out
		}
		out = append(out, *m.Event)
	}
}

// appendMarker appends one event to this subtest's "marker" stream and
// returns its id.
func (f *fixture) appendMarker() uuid.UUID {
	f.t.Helper()
	ev := events(1, "marker")
	f.mustAppend(f.stream("marker"), eventstore.Any(), ev)
	return ev[0].ID
}

func testSubscribeFromStart(f *fixture) {
	a, b := f.stream("a"), f.stream("b")
	a01, b0 := events(2, "a01"), events(1, "b0")
	f.mustAppend(a, eventstore.NoStream(), a01)
	f.mustAppend(b, eventstore.NoStream(), b0)
	stored := append(seq(a, 0, a01), seq(b, 0, b0)...)

	r := f.subscribe(eventstore.Start, "")
	f.checkEvents("stored events", r.untilCaughtUp(), stored)

	a2, b1 := events(1, "a2"), events(1, "b1")
	f.mustAppend(a, eventstore.Exactly(1), a2)
	f.mustAppend(b, eventstore.Exactly(0), b1)
	f.checkEvents("live events", r.take(2), append(seq(a, 2, a2), seq(b, 1, b1)...))
}

func testSubscribeFromPosition(f *fixture) {
	s := f.stream("a")
	evs := events(5, "stored")
	f.mustAppend(s, eventstore.NoStream(), evs)
	stored := f.readStream(s, 0, 0)
	all := seq(s, 0, evs)

	r := f.subscribe(stored[1].Position, "")
	f.checkEvents("stored events after revision 1", r.untilCaughtUp(), all[2:])

	live := events(2, "live")
	f.mustAppend(s, eventstore.Exactly(4), live)
	f.checkEvents("live events", r.take(2), seq(s, 5, live))

	// From the last stored position: nothing stored, then only live events.
	last := f.readStream(s, 0, 0)
	r2 := f.subscribe(last[len(last)-1].Position, "")
	if got := r2.untilCaughtUp(); len(got) != 0 {
		f.t.Errorf("subscription from the last position delivered %d stored events: %s", len(got), describe(got))
	}
	more := events(1, "more")
	f.mustAppend(s, eventstore.Exactly(6), more)
	f.checkEvents("live after the last position", r2.take(1), seq(s, 7, more))
}

func testSubscribePrefix(f *fixture) {
	t1, t2, o := f.stream("one"), f.stream("two"), f.streamWithPrefix("other-", "x")
	e1, e2, eo := events(2, "t1"), events(1, "t2"), events(2, "o")
	f.mustAppend(t1, eventstore.NoStream(), e1[:1])
	f.mustAppend(o, eventstore.NoStream(), eo[:1])
	f.mustAppend(t2, eventstore.NoStream(), e2)
	f.mustAppend(o, eventstore.Exactly(0), eo[1:])
	f.mustAppend(t1, eventstore.Exactly(0), e1[1:])
	stored := []want{{t1, 0, e1[0]}, {t2, 0, e2[0]}, {t1, 1, e1[1]}}

	broad := f.subscribe(eventstore.Start, "turn-")
	narrow := f.subscribe(eventstore.Start, "turn-"+f.ns)
	f.checkEvents(`stored events with prefix "turn-"`, broad.untilCaughtUp(), stored)
	f.checkEvents("stored events with the subtest's prefix", narrow.untilCaughtUp(), stored)

	// Live: an event of the other stream, then one of ours; only ours arrives.
	lo, lt := events(1, "live-other"), events(1, "live-turn")
	f.mustAppend(o, eventstore.Exactly(1), lo)
	f.mustAppend(t2, eventstore.Exactly(0), lt)
	f.checkEvents(`live with prefix "turn-"`, broad.take(1), seq(t2, 1, lt))
	f.checkEvents("live with the subtest's prefix", narrow.take(1), seq(t2, 1, lt))
}

// testSubscribeWhileAppending checks that catch-up hands over to live
// delivery with no gap and no duplicate while appends run concurrently.
func testSubscribeWhileAppending(f *fixture) {
	const streams, before, during = 4, 10, 60
	names := make([]string, streams)
	for i := range names {
		names[i] = f.stream(fmt.Sprintf("s%d", i))
		for j := range before {
			exp := eventstore.Exactly(uint64(j - 1))
			if j == 0 {
				exp = eventstore.NoStream()
			}
			f.mustAppend(names[i], exp, events(1, "before"))
		}
	}
	total := streams * (before + during)

	var wg sync.WaitGroup
	errs := make(chan error, streams)
	start := make(chan struct{})
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for j := range during {
				rev := uint64(before + j - 1)
				if _, err := f.store.Append(f.ctx, names[i], eventstore.Exactly(rev), events(1, "during")); err != nil {
					errs <- fmt.Errorf("Append(%s, %d): %w", names[i], rev, err)
					return
				}
			}
		}()
	}
	close(start)
	r := f.subscribe(eventstore.Start, "turn-"+f.ns)
	got := r.take(total / 2)
	wg.Wait()
	close(errs)
	for err := range errs {
		f.t.Fatal(err)
	}
	got = append(got, r.takeUntil(f.appendMarker())...)
	if len(got) != total {
		f.t.Fatalf("delivered %d events before the marker, want %d", len(got), total)
	}
	if r.caughtUp != 1 {
		// CaughtUp may come after the last event if appends kept the
		// subscription busy; nothing else is stored, so it comes next.
		if m := r.next(); !m.CaughtUp {
			f.t.Fatalf("no CaughtUp among %d events and the marker, and the next message is an event", total)
		}
	}
	checkGapless(f, got, names)
}

// checkGapless checks that got holds every revision of each stream exactly
// once, in order, with the ids the store holds.
func checkGapless(f *fixture, got []eventstore.RecordedEvent, names []string) {
	f.t.Helper()
	next := map[string]uint64{}
	for _, e := range got {
		if e.Revision != next[e.Stream] {
			f.t.Fatalf("%s: got revision %d, want %d (gap or reorder)", e.Stream, e.Revision, next[e.Stream])
		}
		next[e.Stream]++
	}
	byStream := map[string][]eventstore.RecordedEvent{}
	for _, e := range got {
		byStream[e.Stream] = append(byStream[e.Stream], e)
	}
	for _, n := range names {
		stored := f.readStream(n, 0, 0)
		if len(stored) != len(byStream[n]) {
			f.t.Fatalf("%s: delivered %d events, stored %d", n, len(byStream[n]), len(stored))
		}
		for i, e := range stored {
			if byStream[n][i].ID != e.ID || byStream[n][i].Position != e.Position {
				f.t.Fatalf("%s@%d: delivered %s at %s, stored %s at %s", n, i, byStream[n][i].ID, byStream[n][i].Position, e.ID, e.Position)
			}
		}
	}
}

// testSubscribeSlowConsumer opens subscriptions that do not read while many
// appends run (the appends must not block), then reads everything.
func testSubscribeSlowConsumer(f *fixture) {
	s := f.stream("a")
	f.mustAppend(s, eventstore.NoStream(), events(1, "first"))
	idle := f.subscribe(eventstore.Start, "")
	slow := f.subscribe(eventstore.Start, "turn-"+f.ns)
	const n = 300
	for i := range n {
		f.mustAppend(s, eventstore.Exactly(uint64(i)), events(1, "slow"))
	}
	marker := f.appendMarker()
	checkGapless(f, slow.takeUntil(marker), []string{s})
	checkGapless(f, idle.takeUntil(marker), []string{s})
}

func testSubscriptionContextAndClose(f *fixture) {
	s := f.stream("a")
	f.mustAppend(s, eventstore.NoStream(), events(1, "a"))
	r := f.subscribe(eventstore.Start, "turn-"+f.ns)
	if got := r.untilCaughtUp(); len(got) != 1 {
		f.t.Fatalf("stored events: got %d, want 1", len(got))
	}

	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	if _, err := r.sub.Recv(ctx); !errors.Is(err, context.Canceled) {
		f.t.Errorf("Recv with a cancelled context: %v, want context.Canceled", err)
	}

	// A Recv blocked waiting for live events returns ErrClosed on Close.
	done := make(chan error, 1)
	go func() {
		_, err := r.sub.Recv(f.ctx)
		done <- err
	}()
	if err := r.sub.Close(); err != nil {
		f.t.Errorf("Subscription.Close: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, eventstore.ErrClosed) {
			f.t.Errorf("Recv blocked across Close: %v, want ErrClosed", err)
		}
	case <-f.ctx.Done():
		f.t.Fatal("Recv still blocked after Subscription.Close (hang)")
	}
	if _, err := r.sub.Recv(f.ctx); !errors.Is(err, eventstore.ErrClosed) {
		f.t.Errorf("Recv after Close: %v, want ErrClosed", err)
	}
	// Closing a subscription leaves the store working.
	f.mustAppend(s, eventstore.Exactly(0), events(1, "b"))
}

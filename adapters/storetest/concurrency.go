package storetest

import (
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

func concurrencyCases() []testCase {
	return []testCase{
		{"ConcurrentAppendsManyStreams", testConcurrentAppends},
		{"ConcurrentExactlyRace", testExactlyRace},
	}
}

func closeCases() []testCase {
	return []testCase{
		{"OperationsAfterClose", testOperationsAfterClose},
	}
}

// testConcurrentAppends runs many goroutines appending with Any to a few
// shared streams and checks every acknowledged event is stored once, with
// unique, increasing positions and gapless revisions.
func testConcurrentAppends(f *fixture) {
	const goroutines, perGoroutine, streams = 16, 25, 8
	type ack struct {
		stream string
		evs    []eventstore.EventData
		res    eventstore.AppendResult
	}
	acks := make([][]ack, goroutines)
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perGoroutine {
				s := f.stream(fmt.Sprintf("s%d", (g+i)%streams))
				evs := events(1+i%2, fmt.Sprintf("g%d-%d", g, i))
				res, err := f.store.Append(f.ctx, s, eventstore.Any(), evs)
				if err != nil {
					errs <- fmt.Errorf("goroutine %d append %d: %w", g, i, err)
					return
				}
				acks[g] = append(acks[g], ack{s, evs, res})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		f.t.Fatal(err)
	}

	all := f.readAllOurs(eventstore.Start) // checks positions increase
	byID := map[uuid.UUID]eventstore.RecordedEvent{}
	byPos := map[eventstore.Position]eventstore.RecordedEvent{}
	next := map[string]uint64{}
	for _, e := range all {
		if _, dup := byID[e.ID]; dup {
			f.t.Fatalf("event %s stored twice", e.ID)
		}
		if _, dup := byPos[e.Position]; dup {
			f.t.Fatalf("position %s used twice", e.Position)
		}
		byID[e.ID], byPos[e.Position] = e, e
		if e.Revision != next[e.Stream] {
			f.t.Fatalf("%s: revision %d follows %d (gap or reorder)", e.Stream, e.Revision, next[e.Stream])
		}
		next[e.Stream]++
	}
	n := 0
	for g := range acks {
		var last eventstore.Position
		for _, a := range acks[g] {
			n += len(a.evs)
			for i, ev := range a.evs {
				got, ok := byID[ev.ID]
				if !ok {
					f.t.Fatalf("acknowledged event %s of %s missing from ReadAll", ev.ID, a.stream)
				}
				if got.Stream != a.stream || got.Revision != a.res.NextExpectedRevision-uint64(len(a.evs)-1-i) {
					f.t.Fatalf("event %s at %s@%d, want %s@%d", ev.ID, got.Stream, got.Revision, a.stream, a.res.NextExpectedRevision-uint64(len(a.evs)-1-i))
				}
			}
			if e := byPos[a.res.Position]; e.ID != a.evs[len(a.evs)-1].ID {
				f.t.Fatalf("AppendResult.Position %s holds %s, want the append's last event %s", a.res.Position, e.ID, a.evs[len(a.evs)-1].ID)
			}
			if !last.Less(a.res.Position) {
				f.t.Fatalf("goroutine %d: append at %s not after its previous append at %s", g, a.res.Position, last)
			}
			last = a.res.Position
		}
	}
	if n != len(all) {
		f.t.Fatalf("%d events acknowledged, %d stored", n, len(all))
	}
}

// testExactlyRace has many goroutines race Exactly(n) appends on one stream,
// each trying every revision in turn: exactly one wins each revision.
func testExactlyRace(f *fixture) {
	const goroutines, revisions = 8, 30
	s := f.stream("race")
	type win struct {
		rev uint64
		id  uuid.UUID
	}
	wins := make(chan win, goroutines*revisions)
	errs := make(chan error, goroutines)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for rev := range uint64(revisions) {
				exp := eventstore.NoStream()
				if rev > 0 {
					exp = eventstore.Exactly(rev - 1)
				}
				evs := events(1, fmt.Sprintf("g%d-r%d", g, rev))
				res, err := f.store.Append(f.ctx, s, exp, evs)
				var wev *eventstore.WrongExpectedVersionError
				switch {
				case err == nil:
					if res.NextExpectedRevision != rev {
						errs <- fmt.Errorf("goroutine %d won revision %d but the result says %d", g, rev, res.NextExpectedRevision)
						return
					}
					wins <- win{rev, evs[0].ID}
				case errors.As(err, &wev):
					if wev.Actual != -2 && wev.Actual < int64(rev) {
						errs <- fmt.Errorf("goroutine %d lost revision %d but Actual is %d", g, rev, wev.Actual)
						return
					}
				default:
					errs <- fmt.Errorf("goroutine %d revision %d: %w", g, rev, err)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	close(wins)
	for err := range errs {
		f.t.Fatal(err)
	}
	winners := map[uint64][]uuid.UUID{}
	for w := range wins {
		winners[w.rev] = append(winners[w.rev], w.id)
	}
	stored := f.readStream(s, 0, 0)
	if len(stored) != revisions {
		f.t.Fatalf("stream has %d events, want %d", len(stored), revisions)
	}
	for rev := range uint64(revisions) {
		ids := winners[rev]
		if len(ids) != 1 {
			f.t.Fatalf("revision %d has %d winners, want exactly 1", rev, len(ids))
		}
		if stored[rev].Revision != rev || stored[rev].ID != ids[0] {
			f.t.Fatalf("revision %d stores %s@%d, winner was %s", rev, stored[rev].ID, stored[rev].Revision, ids[0])
		}
	}
}

func testOperationsAfterClose(f *fixture) {
	s := f.stream("a")
	f.mustAppend(s, eventstore.NoStream(), events(1, "a"))
	if err := f.store.Ping(f.ctx); err != nil {
		f.t.Fatalf("Ping on an open store: %v", err)
	}
	r := f.subscribe(eventstore.Start, "turn-"+f.ns)
	r.untilCaughtUp()
	blocked := make(chan error, 1)
	go func() {
		_, err := r.sub.Recv(f.ctx)
		blocked <- err
	}()

	if err := f.store.Close(); err != nil {
		f.t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-blocked:
		if !errors.Is(err, eventstore.ErrClosed) {
			f.t.Errorf("Recv waiting across the store's Close: %v, want ErrClosed", err)
		}
	case <-f.ctx.Done():
		f.t.Fatal("Recv still blocked after the store's Close (hang)")
	}
	check := func(op string, err error) {
		f.t.Helper()
		if !errors.Is(err, eventstore.ErrClosed) {
			f.t.Errorf("%s after Close: %v, want ErrClosed", op, err)
		}
	}
	_, err := f.store.Append(f.ctx, s, eventstore.Exactly(0), events(1, "b"))
	check("Append", err)
	_, err = f.store.ReadStream(f.ctx, s, 0, 0)
	check("ReadStream", err)
	_, err = f.store.ReadAll(f.ctx, eventstore.Start, 0)
	check("ReadAll", err)
	_, err = f.store.Subscribe(f.ctx, eventstore.Start, "")
	check("Subscribe", err)
	check("Ping", f.store.Ping(f.ctx))
	_, err = r.sub.Recv(f.ctx)
	check("Subscription.Recv", err)
	check("a second Close", f.store.Close())
}

package projections

import (
	"context"
	"errors"
	"fmt"

	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/internal/follow"
)

// replayPage is how many events a replay reads at a time.
const replayPage = 2048

// Rebuild replays the store from the projector's position to the end. A
// fresh projector rebuilt this way equals one fed incrementally. Reading and
// decoding (on two goroutines) run ahead of applying, a page at a time.
func (p *Projector) Rebuild(ctx context.Context, store eventstore.Store) error {
	type page struct {
		evs []turn.Event
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan page, 2)
	go func() {
		defer close(pages)
		from := p.Position()
		for {
			recs, err := store.ReadAll(ctx, from, replayPage)
			var evs []turn.Event
			if err == nil {
				evs, err = decodeRecords(recs)
			}
			select {
			case pages <- page{evs: evs, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil || len(recs) < replayPage {
				return
			}
			from = recs[len(recs)-1].Position
		}
	}()
	for pg := range pages {
		if pg.err != nil {
			return pg.err
		}
		for i := range pg.evs {
			if err := p.Apply(&pg.evs[i]); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// decodeRecords decodes the turn events of a page on two goroutines,
// keeping their order and skipping streams that are not turns.
func decodeRecords(recs []eventstore.RecordedEvent) ([]turn.Event, error) {
	evs := make([]turn.Event, len(recs))
	errs := make([]error, len(recs))
	half := len(recs) / 2
	done := make(chan struct{})
	decode := func(from, to int) {
		for i := from; i < to; i++ {
			if isTurnStream(recs[i].Stream) {
				evs[i], errs[i] = eventcodec.DecodeUnhashed(&recs[i])
			}
		}
	}
	go func() { decode(0, half); close(done) }()
	decode(half, len(recs))
	<-done
	out := evs[:0]
	for i := range recs {
		if !isTurnStream(recs[i].Stream) {
			continue
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, evs[i])
	}
	return out, nil
}

func isTurnStream(s string) bool {
	return len(s) > len(turn.StreamPrefix) && s[:len(turn.StreamPrefix)] == turn.StreamPrefix
}

// Follow rebuilds the projector, calls ready (when not nil), then applies
// every new event from the store's subscription until ctx ends. A dropped
// subscription is resumed from the last position applied. An event that
// cannot be decoded stops Follow with an error: skipping it would leave the
// read models wrong.
//
// While the store is unavailable the rebuild is retried with a backoff, so a
// server can start before its store is reachable.
func (p *Projector) Follow(ctx context.Context, store eventstore.Store, ready func()) error {
	var b follow.Backoff
	for {
		err := p.Rebuild(ctx, store)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errors.Is(err, eventstore.ErrUnavailable) {
			return err
		}
		if err := b.Wait(ctx); err != nil {
			return err
		}
	}
	if ready != nil {
		ready()
	}
	return follow.Loop(ctx, func() error { return p.follow(ctx, store) }, nil)
}

func (p *Projector) follow(ctx context.Context, store eventstore.Store) error {
	sub, err := store.Subscribe(ctx, p.Position(), turn.StreamPrefix)
	if err != nil {
		return err
	}
	defer sub.Close()
	for {
		m, err := sub.Recv(ctx)
		if err != nil {
			return err
		}
		if m.Event == nil || !isTurnStream(m.Event.Stream) {
			continue
		}
		ev, err := eventcodec.DecodeUnhashed(m.Event)
		if err != nil {
			return follow.Fatal(fmt.Errorf("projections: %w", err))
		}
		if err := p.Apply(&ev); err != nil {
			return follow.Fatal(err)
		}
	}
}

package logstore

import (
	"context"
	"fmt"
	"sync"

	"turnstile/domain/eventstore"
)

// Subscription paging: a Recv that finds its buffer empty reads at most
// subPage matching events, examining at most subScanLimit records, so a
// narrow prefix over a long log does not hold one read transaction for long.
const (
	subPage      = 512
	subScanLimit = 8192
)

// Subscribe delivers every event of streams whose name starts with prefix
// (all streams when prefix is empty) strictly after from: first the stored
// ones, then one CaughtUp message, then live ones as they are committed. The
// subscription reads the log itself after each commit, so it never drops
// an event and a slow reader never holds up appends.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, prefix string) (eventstore.Subscription, error) {
	if err := s.Ping(ctx); err != nil {
		return nil, err
	}
	return &subscription{
		store:   s,
		prefix:  prefix,
		scanned: from.Commit,
		closed:  make(chan struct{}),
	}, nil
}

// subscription implements eventstore.Subscription over a Store.
type subscription struct {
	store  *Store
	prefix string

	// mu serialises Recv and guards scanned, buf and caughtUp.
	mu sync.Mutex
	// scanned is the last log position examined; every matching event up
	// to it has been delivered or is in buf.
	scanned uint64
	// buf holds events read but not yet delivered, in order.
	buf []eventstore.RecordedEvent
	// caughtUp is set once the CaughtUp message has been delivered.
	caughtUp bool

	closeOnce sync.Once
	// closed is closed by Close.
	closed chan struct{}
}

// Recv returns the next message. It returns ErrClosed once the subscription
// or the store is closed, and ctx's error when ctx ends first.
func (sub *subscription) Recv(ctx context.Context) (eventstore.Message, error) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	s := sub.store
	for {
		select {
		case <-sub.closed:
			return eventstore.Message{}, eventstore.ErrClosed
		case <-s.closing:
			return eventstore.Message{}, eventstore.ErrClosed
		default:
		}
		if err := ctx.Err(); err != nil {
			return eventstore.Message{}, err
		}
		if len(sub.buf) > 0 {
			ev := sub.buf[0]
			sub.buf[0] = eventstore.RecordedEvent{}
			sub.buf = sub.buf[1:]
			return eventstore.Message{Event: &ev}, nil
		}
		// Take the wake channel before looking at committed, so that a
		// commit after the look closes the channel we wait on.
		wake := s.watch()
		if s.committed.Load() > sub.scanned {
			evs, scanned, err := s.scan(ctx, sub.scanned, sub.prefix, subPage, subScanLimit)
			if err != nil {
				return eventstore.Message{}, fmt.Errorf("logstore: subscription: %w", err)
			}
			sub.buf, sub.scanned = evs, scanned
			continue
		}
		if !sub.caughtUp {
			sub.caughtUp = true
			return eventstore.Message{CaughtUp: true}, nil
		}
		if err := sub.wait(ctx, wake); err != nil {
			return eventstore.Message{}, err
		}
	}
}

// wait blocks until wake is closed, ctx ends, or the subscription or the
// store is closed.
func (sub *subscription) wait(ctx context.Context, wake <-chan struct{}) error {
	sub.store.waiting.Add(1)
	defer sub.store.waiting.Add(-1)
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-sub.closed:
		return eventstore.ErrClosed
	case <-sub.store.closing:
		return eventstore.ErrClosed
	}
}

// Close ends the subscription; a Recv blocked in another goroutine returns
// ErrClosed. Close is idempotent.
func (sub *subscription) Close() error {
	sub.closeOnce.Do(func() { close(sub.closed) })
	return nil
}

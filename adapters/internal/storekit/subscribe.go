package storekit

import (
	"context"
	"fmt"
	"sync"

	"turnstile/domain/eventstore"
)

// Subscription paging: a Recv that finds its buffer empty reads at most
// SubscriptionPage matching events, examining at most SubscriptionScanLimit
// records, so a narrow prefix over a long log does not hold one read for
// long.
const (
	SubscriptionPage      = 512
	SubscriptionScanLimit = 8192
)

// ScanFunc returns up to max events (max <= 0: no limit) after position
// after whose stream starts with prefix, examining at most limit records
// (limit <= 0: no limit). scanned is the position of the last record
// examined (or after when none was).
type ScanFunc func(ctx context.Context, after uint64, prefix string, max, limit int) (evs []eventstore.RecordedEvent, scanned uint64, err error)

// Subscribe returns a subscription to every event of streams whose name
// starts with prefix (all streams when prefix is empty) strictly after from:
// first the stored ones, then one CaughtUp message, then live ones as they
// are committed. It reads the log itself with scan after each Publish, so it
// never drops an event and a slow reader never holds up appends. name
// prefixes its errors ("logstore").
func (f *Feed) Subscribe(name string, from eventstore.Position, prefix string, scan ScanFunc) eventstore.Subscription {
	return &subscription{
		feed:    f,
		name:    name,
		scan:    scan,
		prefix:  prefix,
		scanned: from.Commit,
		closed:  make(chan struct{}),
	}
}

// subscription implements eventstore.Subscription over a Feed.
type subscription struct {
	feed   *Feed
	name   string
	scan   ScanFunc
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
	f := sub.feed
	for {
		select {
		case <-sub.closed:
			return eventstore.Message{}, eventstore.ErrClosed
		case <-f.closing:
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
		wake := f.watch()
		if f.committed.Load() > sub.scanned {
			evs, scanned, err := sub.scan(ctx, sub.scanned, sub.prefix, SubscriptionPage, SubscriptionScanLimit)
			if err != nil {
				return eventstore.Message{}, fmt.Errorf("%s: subscription: %w", sub.name, err)
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
// feed is closed.
func (sub *subscription) wait(ctx context.Context, wake <-chan struct{}) error {
	sub.feed.waiting.Add(1)
	defer sub.feed.waiting.Add(-1)
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-sub.closed:
		return eventstore.ErrClosed
	case <-sub.feed.closing:
		return eventstore.ErrClosed
	}
}

// Close ends the subscription; a Recv blocked in another goroutine returns
// ErrClosed. Close is idempotent.
func (sub *subscription) Close() error {
	sub.closeOnce.Do(func() { close(sub.closed) })
	return nil
}

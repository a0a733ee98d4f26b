package esdbstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"turnstile/domain/eventstore"
)

// subscriptionBuffer is how many messages a subscription holds for a
// consumer that is not reading; beyond it the server's stream is paused by
// gRPC flow control, which costs writers nothing.
const subscriptionBuffer = 256

// Subscribe follows $all from from (exclusive; Start is before the first
// event), filtered server-side on stream names starting with prefix (user
// streams when prefix is empty). ctx bounds the subscription's life. The
// first subscription must succeed within Options.Timeout; later drops are
// repaired in the background.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, prefix string) (eventstore.Subscription, error) {
	if s.isClosed() {
		return nil, fmt.Errorf("esdb: subscribe: %w", eventstore.ErrClosed)
	}
	life, cancel := context.WithCancel(ctx)
	sub := &subscription{
		s: s, prefix: prefix, last: from, ctx: life, cancel: cancel,
		msgs: make(chan eventstore.Message, subscriptionBuffer), closed: make(chan struct{}),
	}

	deadline := time.Now().Add(s.opts.Timeout)
	var inner *innerSub
	var err error
	wait := s.opts.MinBackoff / 2
	for {
		inner, err = s.openSub(life, from, prefix, time.Until(deadline))
		if err == nil || !transient(err) || life.Err() != nil {
			break
		}
		wait = s.backoff(wait)
		if time.Until(deadline) < wait || sleep(life, wait) != nil {
			break
		}
	}
	if err != nil {
		cancel()
		return nil, s.wrap(ctx, "subscribe", err)
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		inner.close()
		cancel()
		return nil, fmt.Errorf("esdb: subscribe: %w", eventstore.ErrClosed)
	}
	s.subs[sub] = struct{}{}
	s.mu.Unlock()
	go sub.pump(inner)
	return sub, nil
}

// innerSub is one v4 subscription and the cancel function of its context.
type innerSub struct {
	sub    *esdbc.Subscription
	cancel context.CancelFunc
}

func (i *innerSub) close() {
	_ = i.sub.Close()
	i.cancel()
}

// openSub makes one SubscribeToAll attempt. The subscription lives as long
// as life, but the attempt (which returns once the server confirms) must
// succeed within timeout.
func (s *Store) openSub(life context.Context, from eventstore.Position, prefix string, timeout time.Duration) (*innerSub, error) {
	cn, leave, err := s.enter()
	if err != nil {
		return nil, err
	}
	awaitCtx, cancelAwait := context.WithTimeout(life, max(timeout, 0))
	err = cn.await(awaitCtx)
	cancelAwait()
	if err != nil {
		leave()
		return nil, err
	}
	opts := esdbc.SubscribeToAllOptions{From: esdbc.Start{}, Filter: filterFor(prefix)}
	if from != eventstore.Start {
		opts.From = esdbc.Position{Commit: from.Commit, Prepare: from.Prepare}
	}
	ctx, cancel := context.WithCancel(life)
	type result struct {
		sub *esdbc.Subscription
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer leave()
		var sub *esdbc.Subscription
		err := guard(func() error {
			var err error
			sub, err = cn.c.SubscribeToAll(ctx, opts)
			return err
		})
		done <- result{sub, err}
	}()
	t := time.NewTimer(max(timeout, 0))
	defer t.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			cancel()
			if transient(r.err) {
				cn.suspect()
			}
			if clientDead(r.err) {
				s.renew(cn.gen)
			}
			return nil, r.err
		}
		return &innerSub{sub: r.sub, cancel: cancel}, nil
	case <-t.C:
		err = context.DeadlineExceeded
	case <-life.Done():
		err = life.Err()
	}
	cancel()
	go func() { // the attempt may still succeed: do not leak its stream
		if r := <-done; r.sub != nil {
			_ = r.sub.Close()
		}
	}()
	return nil, err
}

// filterFor is the server-side filter of a prefix: stream names starting
// with it, or every user stream for the empty prefix.
func filterFor(prefix string) *esdbc.SubscriptionFilter {
	if prefix == "" {
		return &esdbc.SubscriptionFilter{Type: esdbc.StreamFilterType, Regex: `^[^$]`}
	}
	return &esdbc.SubscriptionFilter{Type: esdbc.StreamFilterType, Prefixes: []string{prefix}}
}

// subscription is the port's Subscription: a pump goroutine reads the v4
// subscription, resubscribes after drops and feeds msgs; Recv reads msgs.
type subscription struct {
	s      *Store
	prefix string

	ctx    context.Context // the subscription's life: Subscribe's ctx, cancelled by Close
	cancel context.CancelFunc
	// msgs carries messages to Recv; the pump closes it when it ends, after
	// setting err.
	msgs chan eventstore.Message
	err  error
	// closed is closed by Close.
	closed    chan struct{}
	closeOnce sync.Once

	// last is the position of the last event handed to msgs (or the start
	// position), where a resubscription starts; caughtUp records that the
	// one CaughtUp was handed over. Both are owned by the pump.
	last     eventstore.Position
	caughtUp bool
}

// Recv returns the next message. It returns ctx's error when ctx ends (the
// subscription stays usable), ErrClosed once the subscription or the store
// is closed, and an error wrapping the subscription context's error when
// that context ends.
func (sub *subscription) Recv(ctx context.Context) (eventstore.Message, error) {
	select {
	case <-sub.closed:
		return eventstore.Message{}, fmt.Errorf("esdb: subscription: %w", eventstore.ErrClosed)
	default:
	}
	select {
	case m, ok := <-sub.msgs:
		if !ok {
			return eventstore.Message{}, sub.err
		}
		return m, nil
	case <-sub.closed:
		return eventstore.Message{}, fmt.Errorf("esdb: subscription: %w", eventstore.ErrClosed)
	case <-ctx.Done():
		return eventstore.Message{}, ctx.Err()
	}
}

// Close ends the subscription. It is safe to call more than once.
func (sub *subscription) Close() error {
	sub.closeOnce.Do(func() {
		close(sub.closed)
		sub.cancel()
		sub.s.mu.Lock()
		delete(sub.s.subs, sub)
		sub.s.mu.Unlock()
	})
	return nil
}

// pump forwards inner's messages and, whenever the server drops the
// subscription, resubscribes from the last delivered position with backoff,
// until the subscription's context ends.
func (sub *subscription) pump(inner *innerSub) {
	defer func() {
		sub.s.mu.Lock()
		delete(sub.s.subs, sub)
		sub.s.mu.Unlock()
		close(sub.msgs)
	}()
	for {
		sub.forward(inner)
		inner.close()
		wait := time.Duration(0)
		for inner = nil; inner == nil; {
			if sub.ctx.Err() != nil {
				sub.err = sub.endError()
				return
			}
			wait = sub.s.backoff(wait)
			if sleep(sub.ctx, wait) != nil {
				continue
			}
			var err error
			inner, err = sub.s.openSub(sub.ctx, sub.last, sub.prefix, sub.s.opts.Timeout)
			if errors.Is(err, eventstore.ErrClosed) {
				sub.err = fmt.Errorf("esdb: subscription: %w", eventstore.ErrClosed)
				return
			}
		}
	}
}

// endError is why the subscription ended once its context is done.
func (sub *subscription) endError() error {
	select {
	case <-sub.closed:
		return fmt.Errorf("esdb: subscription: %w", eventstore.ErrClosed)
	default:
	}
	if sub.s.isClosed() {
		return fmt.Errorf("esdb: subscription: %w", eventstore.ErrClosed)
	}
	return fmt.Errorf("esdb: subscription ended: %w", context.Cause(sub.ctx))
}

// forward hands inner's events and the first CaughtUp to msgs until the
// subscription drops or its context ends. Checkpoints and fell-behind
// notices are not needed: resubscribing from the last event is exact.
func (sub *subscription) forward(inner *innerSub) {
	for {
		ev := inner.sub.Recv()
		switch {
		case ev.SubscriptionDropped != nil:
			return
		case ev.EventAppeared != nil:
			e := ev.EventAppeared.OriginalEvent()
			if e == nil {
				continue
			}
			p := eventstore.Position{Commit: e.Position.Commit, Prepare: e.Position.Prepare}
			if !sub.last.Less(p) {
				continue // already delivered
			}
			if !isSystem(e.StreamID) && strings.HasPrefix(e.StreamID, sub.prefix) {
				rec := toRecorded(e)
				if !sub.send(eventstore.Message{Event: &rec}) {
					return
				}
			}
			sub.last = p
		case ev.CaughtUp != nil:
			if !sub.caughtUp {
				if !sub.send(eventstore.Message{CaughtUp: true}) {
					return
				}
				sub.caughtUp = true
			}
		}
	}
}

func (sub *subscription) send(m eventstore.Message) bool {
	select {
	case sub.msgs <- m:
		return true
	case <-sub.ctx.Done():
		return false
	}
}

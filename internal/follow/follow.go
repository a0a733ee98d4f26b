// Package follow is the retry loop of a store's followers (the read models
// in projections, the live-event broadcaster in internal/fanout): subscribe,
// apply until the subscription fails, and subscribe again after a backoff,
// unless the failure is final.
package follow

import (
	"context"
	"errors"
	"time"

	"turnstile/domain/eventstore"
)

// Backoff is the wait between retries: 50 ms, doubling up to 5 s. The zero
// value is ready to use.
type Backoff struct {
	d time.Duration
}

// Wait waits the current backoff, then doubles it; it returns ctx's error
// when ctx ends first.
func (b *Backoff) Wait(ctx context.Context) error {
	if b.d == 0 {
		b.d = 50 * time.Millisecond
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(b.d):
	}
	b.d = min(b.d*2, 5*time.Second)
	return nil
}

// Fatal wraps err so that Loop returns err instead of retrying.
func Fatal(err error) error { return &fatalError{err} }

type fatalError struct{ err error }

func (f *fatalError) Error() string { return f.err.Error() }

// Loop runs attempt until it must stop: it returns ctx's error once ctx
// has ended, an error wrapping eventstore.ErrClosed (the store is closed),
// or the cause of a Fatal error. Any other outcome, nil included, is
// passed to onError (when set) and attempt runs again after a Backoff.
func Loop(ctx context.Context, attempt func() error, onError func(error)) error {
	var b Backoff
	for {
		err := attempt()
		var fatal *fatalError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, eventstore.ErrClosed):
			return err
		case errors.As(err, &fatal):
			return fatal.err
		}
		if onError != nil {
			onError(err)
		}
		if err := b.Wait(ctx); err != nil {
			return err
		}
	}
}

package storekit

import (
	"context"
	"sync"

	"turnstile/domain/eventstore"
)

// Gate orders a store's Close against every other operation: an operation
// holds the read lock while it queues an append or uses the store's files,
// and Close takes the write lock to mark the store closed. The zero Gate is
// open.
type Gate struct {
	mu sync.RWMutex
	// closed is guarded by mu.
	closed bool
}

// Do runs fn holding the read lock, unless ctx has ended (its error) or
// the store is closed (ErrClosed).
func (g *Gate) Do(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return eventstore.ErrClosed
	}
	return fn()
}

// Close marks the store closed and runs fn holding the write lock, so no
// operation runs beside it; once closed, it returns ErrClosed without
// running fn.
func (g *Gate) Close(fn func()) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return eventstore.ErrClosed
	}
	g.closed = true
	fn()
	return nil
}

// Send queues r on ch, unless ctx ends first (its error).
func Send[R any](ctx context.Context, ch chan<- R, r R) error {
	select {
	case ch <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

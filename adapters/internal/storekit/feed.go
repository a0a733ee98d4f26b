// Package storekit holds what the two embedded event stores
// (adapters/logstore and adapters/boltstore) share: the commit feed that
// wakes their subscriptions, the catch-up subscription itself, and the
// event record they both store. Each store keeps its own files, index and
// writer; the semantics are those of domain/eventstore.
package storekit

import (
	"sync"
	"sync/atomic"
)

// Feed is a store's record of what has been committed, watched by its
// subscriptions. The store's single writer calls Publish after each commit
// that wrote events; Close ends every subscription.
type Feed struct {
	// committed is the last committed position. Publish stores it before
	// closing wake.
	committed atomic.Uint64
	// wakeMu guards wake.
	wakeMu sync.Mutex
	// wake is closed and replaced by every Publish.
	wake chan struct{}
	// closing is closed by Close.
	closing   chan struct{}
	closeOnce sync.Once
	// waiting counts Recv calls blocked until the next commit.
	waiting atomic.Int64
}

// NewFeed returns a feed whose last committed position is last.
func NewFeed(last uint64) *Feed {
	f := &Feed{wake: make(chan struct{}), closing: make(chan struct{})}
	f.committed.Store(last)
	return f
}

// Committed returns the last committed position.
func (f *Feed) Committed() uint64 { return f.committed.Load() }

// Publish records last as committed and wakes the subscriptions.
func (f *Feed) Publish(last uint64) {
	f.committed.Store(last)
	f.wakeMu.Lock()
	close(f.wake)
	f.wake = make(chan struct{})
	f.wakeMu.Unlock()
}

// watch returns a channel that is closed by the next Publish.
func (f *Feed) watch() <-chan struct{} {
	f.wakeMu.Lock()
	defer f.wakeMu.Unlock()
	return f.wake
}

// Close ends every subscription: Recv returns ErrClosed. It is idempotent.
func (f *Feed) Close() { f.closeOnce.Do(func() { close(f.closing) }) }

// Closing returns a channel that Close closes.
func (f *Feed) Closing() <-chan struct{} { return f.closing }

// Waiting returns the number of subscriptions blocked until the next commit.
func (f *Feed) Waiting() int64 { return f.waiting.Load() }

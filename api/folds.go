package api

import (
	"context"
	"sync"
	"sync/atomic"
)

// maxFolds is how many turns are folded from their streams at once, and
// one principal folds one at a time; more wait (as long as their request
// does). A turn may hold up to its credential's open-turn quota (256 MiB
// stored), and the read models hold it only as a summary once it has ended
// before the recent ones (or is larger than --recent-turn-bytes): without a
// bound, concurrent reads of such a turn each held a fold of it, about
// twice its stored size; with one bound for all, one credential's reads
// would keep everyone else's waiting.
const maxFolds = 2

// foldSlots hands out the fold slots: one of all (maxFolds), after one of
// the principal's own (one each).
type foldSlots struct {
	all     chan struct{}
	mu      sync.Mutex // guards by
	by      map[string]*principalFolds
	waiting atomic.Int64 // requests waiting for a slot
}

// principalFolds is one principal's slot and how many of its requests hold
// or wait for it (the entry goes when none do).
type principalFolds struct {
	slot  chan struct{}
	users int
}

func newFoldSlots() *foldSlots { return newSlots(maxFolds) }

// newSlots returns slots of which all principals hold n at once, each one.
func newSlots(n int) *foldSlots {
	return &foldSlots{all: make(chan struct{}, n), by: map[string]*principalFolds{}}
}

// maxLists is how many pending-approval lists are built and written at
// once, one for each principal: the list is one answer, encoded whole
// (each request's view carries its command, up to 128 KiB, twice), and
// a credential that asks for it on connections it never reads would
// otherwise have the server build and hold as many as it sends.
const maxLists = 4

// acquire waits for a slot for the principal name (its own first, then one
// of all) until ctx ends; release gives both back. A request that had to
// wait has its credential authenticated again once it has the slots
// (recheckOf): errRevoked, and nothing held, when it was revoked meanwhile.
func (f *foldSlots) acquire(ctx context.Context, name string) (release func(), err error) {
	f.mu.Lock()
	p := f.by[name]
	if p == nil {
		p = &principalFolds{slot: make(chan struct{}, 1)}
		f.by[name] = p
	}
	p.users++
	f.mu.Unlock()
	leave := func() {
		f.mu.Lock()
		if p.users--; p.users == 0 {
			delete(f.by, name)
		}
		f.mu.Unlock()
	}
	f.waiting.Add(1)
	defer f.waiting.Add(-1)
	waited := false
	select {
	case p.slot <- struct{}{}:
	default:
		waited = true
		select {
		case p.slot <- struct{}{}:
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		}
	}
	select {
	case f.all <- struct{}{}:
	default:
		waited = true
		select {
		case f.all <- struct{}{}:
		case <-ctx.Done():
			<-p.slot
			leave()
			return nil, ctx.Err()
		}
	}
	release = func() {
		<-f.all
		<-p.slot
		leave()
	}
	if waited {
		// The credential may have been revoked while the request waited
		// (as long as it lasts): authenticated again before it is served.
		if err := recheckOf(ctx); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

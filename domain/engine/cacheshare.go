package engine

import "container/list"

// The cache's share per principal. One cache holds every principal's
// turns; with the least recently used evicted first, a runtime that
// touched turns of its own (its open turns alone fill the cache's bytes,
// ended ones any number) evicted every other principal's, each of whose
// next commands then replayed its whole turn from the store on its hot
// path (the twenty-fourth attack review). A principal whose cached turns
// take more than a quarter of the cache's turns or bytes gives up its own
// least recently used turn first; a principal alone uses the whole cache.

// owner is one principal's part of the cache.
type owner struct {
	name  string
	lru   *list.List // of *entry, most recently used at the front
	bytes int64      // the counted bytes of its entries
}

// shareOf is the part of a bound one principal holds before its own turns
// go first.
func shareOf(bound int64) int64 { return max(bound/4, 1) }

// charge adds delta counted bytes to en, and gives en an owner once its
// state names who started the turn. e.mu is held.
func (e *Engine) charge(en *entry, delta int64) {
	if en.owner == nil {
		if en.state == nil || en.state.StartedBy == "" {
			return
		}
		o := e.owners[en.state.StartedBy]
		if o == nil {
			o = &owner{name: en.state.StartedBy, lru: list.New()}
			e.owners[o.name] = o
		}
		en.owner, en.ownEl = o, o.lru.PushFront(en)
		delta = en.folded // what was counted before it had an owner, and delta
	}
	en.owner.bytes += delta
	e.reshare(en.owner)
}

// disown removes en from its owner's part. e.mu is held.
func (e *Engine) disown(en *entry) {
	o := en.owner
	if o == nil {
		return
	}
	o.lru.Remove(en.ownEl)
	o.bytes -= en.counted
	en.owner, en.ownEl = nil, nil
	if o.lru.Len() == 0 {
		delete(e.owners, o.name)
		delete(e.over, o)
		return
	}
	e.reshare(o)
}

// reshare records whether o is over its share. e.mu is held.
func (e *Engine) reshare(o *owner) {
	if int64(o.lru.Len()) > shareOf(int64(e.cfg.MaxCachedTurns)) || o.bytes > shareOf(e.cfg.MaxCachedBytes) {
		e.over[o] = struct{}{}
	} else {
		delete(e.over, o)
	}
}

// victim is the entry to evict: the least recently used of the owner most
// over its share (by the larger of its two ratios to the share), unless
// that is the most recently used entry of all, which is kept; else the
// least recently used of all. e.mu is held; the cache holds two entries
// or more.
func (e *Engine) victim() *entry {
	front := e.lru.Front().Value.(*entry)
	var worst *owner
	var worstBy float64
	turns, bytes := float64(shareOf(int64(e.cfg.MaxCachedTurns))), float64(shareOf(e.cfg.MaxCachedBytes))
	for o := range e.over {
		by := max(float64(o.lru.Len())/turns, float64(o.bytes)/bytes)
		if worst == nil || by > worstBy {
			worst, worstBy = o, by
		}
	}
	if worst != nil {
		if en := worst.lru.Back().Value.(*entry); en != front {
			return en
		}
		if prev := worst.lru.Back().Prev(); prev != nil {
			return prev.Value.(*entry)
		}
	}
	return e.lru.Back().Value.(*entry)
}

// Cached reports whether the turn's state is in the cache.
func (e *Engine) Cached(turnID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.turns[turnID]
	return ok
}

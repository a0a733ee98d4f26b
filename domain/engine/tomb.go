package engine

import (
	"container/list"
	"hash/maphash"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// Tombstones of ended turns. A decision on an ended turn that is not
// cached replayed the turn's whole stream to refuse it (422, the turn has
// ended): the agent started and ended turns of large profiles and cycled
// decisions over more of them than the cache holds, a read of megabytes
// per request of a hundred bytes (the twenty-fourth attack review). When
// an ended turn leaves the cache, what refusing a new call on it needs
// stays: its status, its cwd (the invocation is classified first, so that
// bad input is answered as before) and a digest of each tool call id it
// knows (a known id is answered by replaying the turn: its first answer
// is in the store). A turn's status never leaves an end, and an ended turn
// records no new call, so a tombstone never goes stale.

// tomb is what refusing a new call on an ended turn needs.
type tomb struct {
	id     string
	status turn.Status
	cwd    string
	calls  map[uint64]struct{}
	size   int64
}

// tombSeed seeds the digests of tool call ids (a collision only costs a
// replay).
var tombSeed = maphash.MakeSeed()

func callDigest(id string) uint64 { return maphash.String(tombSeed, id) }

// tombBudget bounds the tombstones' memory: an eighth of the cache's bytes.
func (e *Engine) tombBudget() int64 { return max(e.cfg.MaxCachedBytes/8, 1<<20) }

// bury keeps a tombstone of en, leaving the cache, when its turn has
// ended and its state can be read now (its lock free: an entry in use is
// skipped). e.mu is held.
func (e *Engine) bury(en *entry) {
	select {
	case en.sem <- struct{}{}:
	default:
		return
	}
	defer func() { <-en.sem }()
	s := en.state
	if s == nil || !s.Status.Terminal() {
		return
	}
	t := &tomb{id: en.id, status: s.Status, cwd: s.Snapshot.Sandbox.Cwd, calls: make(map[uint64]struct{}, len(s.Calls))}
	for id := range s.Calls {
		t.calls[callDigest(id)] = struct{}{}
	}
	t.size = int64(len(t.id)+len(t.cwd)) + 16*int64(len(t.calls)) + 128
	if old, ok := e.tombs[t.id]; ok {
		e.unbury(old)
	}
	e.tombs[t.id] = e.tombList.PushFront(t)
	e.tombBytes += t.size
	for e.tombBytes > e.tombBudget() && e.tombList.Len() > 0 {
		e.unbury(e.tombList.Back())
	}
}

// unbury drops a tombstone. e.mu is held.
func (e *Engine) unbury(el *list.Element) {
	t := e.tombList.Remove(el).(*tomb)
	delete(e.tombs, t.id)
	e.tombBytes -= t.size
}

// refuseEnded answers a command that the tombstone of its ended turn
// refuses as the turn's state would, without loading the turn: a decision
// on a new tool call (after its invocation is classified: bad input is a
// 400 as before), a report of a run, a sandbox denial. ok is false when
// the command must be decided against the state (no tombstone, or a tool
// call id the turn knows).
func (e *Engine) refuseEnded(turnID string, cmd turn.Command) (err error, ok bool) {
	e.mu.Lock()
	el, found := e.tombs[turnID]
	var t *tomb
	if found {
		e.tombList.MoveToFront(el)
		t = el.Value.(*tomb)
	}
	e.mu.Unlock()
	if t == nil {
		return nil, false
	}
	ended := &turn.IllegalTransitionError{TurnID: turnID, State: t.status, Transition: turn.TransDecide}
	switch c := cmd.(type) {
	case *turn.EvaluateTool:
		if c.ToolCallID == "" || c.Classified != nil {
			return nil, false
		}
		if _, err := domain.Classify(c.Invocation, t.cwd, c.Trust); err != nil {
			return err, true
		}
		if _, known := t.calls[callDigest(c.ToolCallID)]; known {
			return nil, false
		}
		return ended, true
	case *turn.RecordToolRun, *turn.RecordDenial:
		return ended, true
	}
	return nil, false
}

package engine

import (
	"sync"

	"turnstile/domain"
)

// turnKeys remembers the digest keys of the turns and principals deciding
// now (domain.DigestKey.ForTurn): each is an HMAC of the store's key,
// computed once instead of at every decision of the turn (2.5% of a
// decision's CPU, and four allocations).
type turnKeys struct {
	mu sync.Mutex
	m  map[turnKeyID]domain.DigestKey
}

type turnKeyID struct{ turnID, principal string }

// maxTurnKeys bounds the memo; past it, it starts again.
const maxTurnKeys = 4096

// forTurn returns k.ForTurn(turnID, principal), from the memo when it was
// derived from the same store key.
func (t *turnKeys) forTurn(k domain.DigestKey, turnID, principal string) domain.DigestKey {
	if k.IsZero() {
		return k
	}
	id := turnKeyID{turnID, principal}
	t.mu.Lock()
	got, ok := t.m[id]
	t.mu.Unlock()
	if ok && got.DerivedFrom(k) {
		return got
	}
	got = k.ForTurn(turnID, principal)
	t.mu.Lock()
	if t.m == nil || len(t.m) >= maxTurnKeys {
		t.m = map[turnKeyID]domain.DigestKey{}
	}
	t.m[id] = got
	t.mu.Unlock()
	return got
}

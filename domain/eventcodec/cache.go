package eventcodec

import (
	"sync"

	"turnstile/domain/turn"
)

// snapshotCache remembers recently decoded snapshot-bearing payloads by their
// stored bytes. A snapshot is a few kilobytes and its decoding is most of a
// replay's work, while the turns of one workspace and mode resolve to the
// same bytes; a replay decodes each distinct one once. Payloads are shared
// read-only: a snapshot is never modified once resolved.
var snapshotCache = decodeCache{max: 256, m: map[string]turn.Payload{}}

type decodeCache struct {
	mu  sync.Mutex // guards m
	max int
	m   map[string]turn.Payload
}

func cacheable(p turn.Payload) bool {
	switch p.(type) {
	case *turn.SecuritySnapshotResolved, *turn.ProfileSelected, *turn.ProfileChanged:
		return true
	}
	return false
}

// get returns a copy of the payload decoded from data, if remembered.
func (c *decodeCache) get(typ string, data []byte) (turn.Payload, bool) {
	c.mu.Lock()
	p, ok := c.m[typ+"\x00"+string(data)]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	return shallowCopy(p), true
}

// shallowCopy copies a cached payload's top level, so an event never shares
// its payload value with another (only the read-only slices inside).
func shallowCopy(p turn.Payload) turn.Payload {
	switch v := p.(type) {
	case *turn.SecuritySnapshotResolved:
		cp := *v
		return &cp
	case *turn.ProfileSelected:
		cp := *v
		return &cp
	case *turn.ProfileChanged:
		cp := *v
		return &cp
	}
	return p
}

func (c *decodeCache) put(typ string, data []byte, p turn.Payload) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m) // a crude bound: a replay refills it with what recurs
	}
	c.m[typ+"\x00"+string(data)] = p
}

// reset forgets every remembered payload.
func (c *decodeCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}

package egress

import (
	"context"
	"time"

	"turnstile/domain"
)

// Bounds of the batches of allowed origins (Proxy.batched): past them a
// connection is decided again (one more decision event), never allowed
// without one.
const (
	// maxBatchOrigins is the most origins one turn's batch holds; past it
	// the batch starts over.
	maxBatchOrigins = 1024
	// maxBatchedTurns is the most turns with a batch; past it one is
	// dropped.
	maxBatchedTurns = 4096
)

// batchPrefix is the start of a batch key of a principal's (and its
// credential's) decisions.
func batchPrefix(by domain.Actor, cred string) string {
	return string(by.Role) + "\x00" + by.Name + "\x00" + cred + "\x00"
}

// remember records that k was allowed for turnID at version ver, within
// the bounds, and starts the sweeper. The caller holds p.mu.
func (p *Proxy) remember(turnID string, ver int64, k string) {
	b := p.batched[turnID]
	switch {
	case b != nil && b.version > ver:
		return // the snapshot moved on meanwhile: the entry would never match
	case b == nil && len(p.batched) >= maxBatchedTurns:
		for id := range p.batched {
			delete(p.batched, id)
			break
		}
		fallthrough
	case b == nil, b.version < ver, len(b.allowed) >= maxBatchOrigins:
		b = &batch{version: ver, allowed: map[string]bool{}}
		p.batched[turnID] = b
	}
	b.allowed[k] = true
	if !p.sweeping {
		p.sweeping = true
		go p.sweep()
	}
}

// sweep drops, every SweepEvery, the batches of turns that have ended (whose
// snapshot the judge no longer gives); it stops when no batch is left.
func (p *Proxy) sweep() {
	tk := time.NewTicker(p.SweepEvery)
	defer tk.Stop()
	for range tk.C {
		p.mu.Lock()
		ids := make([]string, 0, len(p.batched))
		for id := range p.batched {
			ids = append(ids, id)
		}
		p.mu.Unlock()
		var ended []string
		for _, id := range ids {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _, err := p.judge.Snapshot(ctx, id)
			cancel()
			if err != nil {
				ended = append(ended, id)
			}
		}
		p.mu.Lock()
		for _, id := range ended {
			delete(p.batched, id)
		}
		done := len(p.batched) == 0
		if done {
			p.sweeping = false
		}
		p.mu.Unlock()
		if p.swept != nil {
			p.swept()
		}
		if done {
			return
		}
	}
}

package egress

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

func (p *Proxy) track(t *tunnel) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.endingTurn(t.turnID) {
		return false
	}
	m := p.open[t.turnID]
	if m == nil {
		m = map[*tunnel]struct{}{}
		p.open[t.turnID] = m
		go p.watch(t.turnID)
	}
	m[t] = struct{}{}
	return true
}

// endingTurn reports whether Drain began ending the turn less than
// endingHold ago: no connection of it is tracked (admitted) meanwhile, so
// that none opens after Drain listed the turn's connections and carries
// bytes no summary records (the hundred-and-thirty-first review). Past
// endingHold the turn has ended (and its judge refuses it) or its end
// failed (and it carries again). The caller holds p.mu.
func (p *Proxy) endingTurn(turnID string) bool {
	at, ok := p.ending[turnID]
	if ok && time.Since(at) >= endingHold {
		delete(p.ending, turnID)
		return false
	}
	return ok
}

// endingHold is how long a turn Drain began ending admits no connection.
const endingHold = 10 * time.Second

// admit tracks t and judges it against the turn's current snapshot: a
// narrowing that landed while the connection was being decided (a person
// asked, a minute perhaps), and that the watch judged before t was
// tracked, is applied to t too; a later one moves the version, and the
// watch judges t then. It reports whether t may go on; when not, t is
// marked narrowed and its upstream closed, and the caller answers the
// client.
func (p *Proxy) admit(t *tunnel) bool {
	if !p.track(t) {
		t.narrowed.Store(true)
		t.up.Close()
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	s, _, err := p.judge.Snapshot(ctx, t.turnID)
	if err == nil {
		// And its credential: one revoked while the connection waited for
		// a person's answer (not tracked yet, so watch did not see it)
		// carries nothing (the hundred-and-forty-fifth review).
		err = p.valid(ctx, t.by, t.cred)
	}
	cancel()
	if err != nil || !t.allowedBy(s) {
		t.narrowed.Store(true)
		t.up.Close()
		return false
	}
	return true
}

func (p *Proxy) untrack(t *tunnel) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.open[t.turnID], t)
}

// Open returns how many proxied connections of the turn are open.
func (p *Proxy) Open(turnID string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.open[turnID])
}

// watch re-judges a turn's open connections (tunnels and plain requests in
// flight) whenever its version moves, closing each one the current
// snapshot denies (its address, or its method: tunnel.allowedBy); it ends
// when the turn has no open connection left.
func (p *Proxy) watch(turnID string) {
	var seen int64 = -1
	tk := time.NewTicker(p.Recheck)
	defer tk.Stop()
	accounted := time.Now()
	for now := range tk.C {
		p.mu.Lock()
		m := p.open[turnID]
		if len(m) == 0 {
			delete(p.open, turnID)
			p.mu.Unlock()
			return
		}
		ts := make([]*tunnel, 0, len(m))
		for t := range m {
			ts = append(ts, t)
		}
		p.mu.Unlock()
		if now.Sub(accounted) >= p.FlushEvery {
			p.accountOpen(ts)
			accounted = now
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, ver, err := p.judge.Snapshot(ctx, turnID)
		// A connection whose principal's credential was revoked is closed
		// whatever the snapshot (Proxy.Valid).
		revoked := p.revoked(ctx, ts)
		cancel()
		if err == nil && ver == seen && len(revoked) == 0 {
			continue
		}
		seen = ver
		// Every denied connection is marked before any is closed: a plain
		// request's copy stops at its mark (narrowedWriter), so once one of
		// them is seen closed, none of the others delivers another byte.
		var denied []*tunnel
		for _, t := range ts {
			if err != nil || revoked[holder{t.by, t.cred}] || !t.allowedBy(s) {
				t.narrowed.Store(true)
				denied = append(denied, t)
			}
		}
		for _, t := range denied {
			t.close()
		}
		if p.rechecked != nil {
			p.rechecked(turnID, ver)
		}
	}
}

// account adds a finished connection to its origin's traffic and schedules
// the turn's next summary (one egress.traffic event per origin per
// FlushEvery window).
func (p *Proxy) account(t *tunnel) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tr := p.trafficOf(t)
	tr.Connections++
	p.addBytes(tr, t)
	if t.narrowed.Load() {
		tr.Closed++
	}
	if p.accounted != nil {
		p.accounted(t.turnID)
	}
}

// accountOpen adds the bytes the open connections ts carried since they
// were last accounted to their origins' traffic, so that a connection that
// stays open (a tunnel until the turn ends, whose summary would then be
// dropped) is recorded window by window; it is counted as a connection
// when it closes.
func (p *Proxy) accountOpen(ts []*tunnel) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range ts {
		if t.up64.Load() != t.upDone || t.down64.Load() != t.downDone {
			p.addBytes(p.trafficOf(t), t)
		}
	}
}

// addBytes adds t's bytes not yet accounted to tr, and schedules the
// turn's next summary. The caller holds p.mu.
func (p *Proxy) addBytes(tr *turn.EgressTraffic, t *tunnel) {
	up, down := t.up64.Load(), t.down64.Load()
	tr.BytesUp += up - t.upDone
	tr.BytesDown += down - t.downDone
	t.upDone, t.downDone = up, down
	if !p.flushing[t.turnID] {
		p.flushing[t.turnID] = true
		time.AfterFunc(p.FlushEvery, func() { p.Flush(t.turnID) })
	}
}

// trafficOf returns the traffic entry of t's origin and principal. The
// caller holds p.mu.
func (p *Proxy) trafficOf(t *tunnel) *turn.EgressTraffic {
	m := p.traffic[t.turnID]
	if m == nil {
		m = map[trafficKey]*turn.EgressTraffic{}
		p.traffic[t.turnID] = m
	}
	k := trafficKey{t.origin, holder{t.by, t.cred}}
	tr := m[k]
	if tr == nil {
		tr = &turn.EgressTraffic{Origin: t.origin}
		m[k] = tr
	}
	return tr
}

// Flush records the turn's accumulated traffic now, one event per origin
// and principal, as that principal's (so it counts for its byte quota).
// A summary that cannot be recorded (the turn has ended, the principal is
// past its quota) is dropped.
func (p *Proxy) Flush(turnID string) {
	p.mu.Lock()
	m := p.traffic[turnID]
	delete(p.traffic, turnID)
	delete(p.flushing, turnID)
	p.mu.Unlock()
	for k, tr := range m {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		id := p.instance + "-" + strconv.FormatInt(p.seq.Add(1), 10)
		err := p.judge.Record(WithActor(withCredential(ctx, k.cred), k.by), turnID, id, *tr)
		cancel()
		var q *domain.QuotaError
		if errors.As(err, &q) {
			p.cutOff(turnID, k.holder)
		}
	}
}

// cutOff stops carrying for a principal past its byte quota in a turn: its
// open connections there are closed and its batched origins dropped, so
// that each new connection is decided (and refused, quota_exceeded) and
// nothing more is carried past the summary just recorded.
func (p *Proxy) cutOff(turnID string, h holder) {
	prefix := batchPrefix(h.by, h.cred)
	p.mu.Lock()
	var ts []*tunnel
	for t := range p.open[turnID] {
		if t.by == h.by && t.cred == h.cred {
			ts = append(ts, t)
		}
	}
	if b := p.batched[turnID]; b != nil {
		for k := range b.allowed {
			if strings.HasPrefix(k, prefix) {
				delete(b.allowed, k)
			}
		}
	}
	p.mu.Unlock()
	for _, t := range ts {
		t.narrowed.Store(true)
		t.close()
	}
}

// trafficKey is what one summary covers: an origin, for one principal
// (and the credential its proxy URL was given on).
type trafficKey struct {
	origin string
	holder
}

// Drain records what the turn's open connections carried before the turn
// ends: it closes them (the turn is ending; its commands are stopped),
// waits (up to drainWait) for their handlers to return, so that the bytes
// a copy handed on just before the close are counted, accounts them and
// records the turn's summaries now, while the turn still takes them. The
// engine runs it before a turn's end (Engine.SetBeforeEnd). A handler
// still running after drainWait has what it carried so far accounted; the
// rest is accounted after the end, and lost.
func (p *Proxy) Drain(_ context.Context, turnID string) {
	p.mu.Lock()
	for id, at := range p.ending {
		if time.Since(at) >= endingHold {
			delete(p.ending, id)
		}
	}
	p.ending[turnID] = time.Now()
	p.closeConns(turnID)
	ts := make([]*tunnel, 0, len(p.open[turnID]))
	for t := range p.open[turnID] {
		ts = append(ts, t)
	}
	p.mu.Unlock()
	for _, t := range ts {
		t.narrowed.Store(true)
		t.close()
	}
	deadline := time.NewTimer(drainWait)
	defer deadline.Stop()
wait:
	for _, t := range ts {
		if t.finished == nil {
			continue
		}
		select {
		case <-t.finished:
		case <-deadline.C:
			break wait
		}
	}
	p.accountOpen(ts)
	p.Flush(turnID)
}

// drainWait bounds how long a turn's end waits for its closed connections'
// handlers to return (a copy blocked in a write ends at the close; this is
// for one the scheduler has not run yet).
const drainWait = 2 * time.Second

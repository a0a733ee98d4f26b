package egress

import (
	"slices"
	"strconv"
	"sync"
	"time"
)

// MaxOpenAsks bounds the approval requests the proxy keeps open for one
// turn's connections: a connection that would open one more is refused
// (approval_limit) without asking, so that a command cannot fill the
// approver's queue with origins of its choosing.
const MaxOpenAsks = 32

// staleAsk is how long an ask no connection has come back to is kept when
// the TTL of its request is not known: past it, the next connection asks
// again.
const staleAsk = 10 * time.Minute

// askKey is one question the proxy asks a person: a turn's connections to
// one origin with one method.
type askKey struct{ turnID, question string }

// ask is the request connections asking one question wait on.
type ask struct {
	// ready is closed once the first connection's decision is recorded:
	// reqID is its request, or "" when it did not ask.
	ready chan struct{}
	reqID string
	made  time.Time
	// claimed is set when one connection took an allow_once.
	claimed bool
	// joined counts the connections that asked it.
	joined int
}

// asks are the open questions (guarded by mu).
type asks struct {
	mu sync.Mutex
	m  map[askKey]*ask
}

// join returns the ask of key, and mine when the caller is the first
// connection to ask it (it must then record the decision and call made).
// A nil ask refuses the connection (v says why): the turn has MaxOpenAsks
// questions open already. An ask older than maxAge (the request's TTL;
// staleAsk when 0) is dropped: its request has expired.
func (q *asks) join(key askKey, now time.Time, maxAge time.Duration) (a *ask, mine bool, v Verdict) {
	if maxAge <= 0 {
		maxAge = staleAsk
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.m == nil {
		q.m = map[askKey]*ask{}
	}
	if a := q.m[key]; a != nil && now.Sub(a.made) <= maxAge {
		a.joined++
		return a, false, Verdict{}
	}
	delete(q.m, key)
	open := 0
	for k, a := range q.m {
		switch {
		case now.Sub(a.made) > maxAge:
			delete(q.m, k)
		case k.turnID == key.turnID:
			open++
		}
	}
	if open >= MaxOpenAsks {
		return nil, false, Verdict{Code: "approval_limit", Rule: strconv.Itoa(open) + " approval requests of this turn's connections are waiting for a person; answer them first"}
	}
	a = &ask{ready: make(chan struct{}), made: now, joined: 1}
	q.m[key] = a
	return a, true, Verdict{}
}

// made records the first connection's decision: reqID is the request it
// opened ("" when it did not ask, and the ask is dropped).
func (q *asks) made(key askKey, a *ask, reqID string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a.reqID = reqID
	if reqID == "" && q.m[key] == a {
		delete(q.m, key)
	}
	close(a.ready)
}

// done drops a once its request is resolved (or gone): the next connection
// asks anew.
func (q *asks) done(key askKey, a *ask) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.m[key] == a {
		delete(q.m, key)
	}
}

// requests lists the requests of the turn's questions (those made).
func (q *asks) requests(turnID string) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []string
	for k, a := range q.m {
		if k.turnID == turnID && a.reqID != "" {
			out = append(out, a.reqID)
		}
	}
	return out
}

// dropRequests drops the turn's questions whose request is one of ids.
func (q *asks) dropRequests(turnID string, ids []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, a := range q.m {
		if k.turnID == turnID && a.reqID != "" && slices.Contains(ids, a.reqID) {
			delete(q.m, k)
		}
	}
}

// claim takes a's allow_once for one connection: true for the first caller
// only.
func (q *asks) claim(a *ask) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if a.claimed {
		return false
	}
	a.claimed = true
	return true
}

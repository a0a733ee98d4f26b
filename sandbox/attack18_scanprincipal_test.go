package sandbox

import (
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack18ScanSlotByPrincipal: the decision scans' slot went to each
// waiting owner in turn (a7a837f), an owner being the filesystem policy
// judged, a turn's workspace and profile. An agent holding a runtime
// credential starts as many turns as it likes, each on a root of its own:
// with one scan of each of its turns waiting, another principal's grep
// waited behind all of them, and past maxScanWait (20 s) its decision is
// refused; a Claude Code Grep of a denied tree, asked behind the flood,
// would have been refused too, and an honest one denied. The slot now goes
// to each principal in turn (DecisionChecker.Principal, set per call by
// the engine), and within a principal's turn to each of its policies in
// turn: one credential may serve several sessions (Claude Code's hook
// credential serves every session of the machine), and a flood of one
// session's scans must not hold another's behind it either.
//
// The attack: with the agent's scan in the slot and one more from each of
// three other turns of its own waiting, another principal's scan is the
// next to run. The second: with the agent's scan in the slot and three
// more of the same turn's waiting, a scan of the same credential in
// another session is the next. The controls: those greps are allowed, and
// without a principal (a checker the engine did not scope) the policies
// still take turns as before.
func TestAttack18ScanSlotByPrincipal(t *testing.T) {
	slot := holdScanSlot(t)
	maxScanWait = time.Minute
	deny := map[string]domain.Access{"**/*.env": domain.AccessDeny}
	var snaps []domain.TurnExecutionSecuritySnapshot
	var roots []string
	for range 5 { // the agent's four turns, and another's
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"src/a/b/": "", "src/x.go": "package x\n"})
		snaps, roots = append(snaps, profileSnapshot(t, ws, deny)), append(roots, ws)
	}
	type scan struct {
		who, principal string
		turn           int // of snaps
	}
	type result struct {
		who string
		err error
	}
	// run holds the slot with first's scan, queues the others in order,
	// and returns the order the scans ran in and the refusals.
	run := func(scoped bool, first scan, queued ...scan) (order []string, errs map[string]error) {
		t.Helper()
		done := make(chan result, 8)
		start := func(s scan) {
			c := DecisionChecker{}
			if scoped {
				c = c.ForPrincipal(s.principal).(DecisionChecker)
			}
			go func() {
				_, err := c.ResolveFile(&snaps[s.turn], filepath.Join(roots[s.turn], "src"), domain.AccessRead, true)
				done <- result{s.who, err}
			}()
		}
		start(first)
		slot.wait(slot.entered, "the first scan")
		for _, s := range queued {
			start(s)
			slot.wait(slot.queued, s.who+" waiting")
		}
		errs = map[string]error{}
		for n := range len(queued) + 1 {
			slot.proceed <- struct{}{}
			r := <-done
			order = append(order, r.who)
			if r.err != nil {
				errs[r.who] = r.err
			}
			if n < len(queued) {
				slot.wait(slot.entered, "the next scan")
			}
		}
		return order, errs
	}

	agentTurns := []scan{{"agent turn 1", "runtime:agent", 1}, {"agent turn 2", "runtime:agent", 2}, {"agent turn 3", "runtime:agent", 3}}
	other := scan{"other principal", "runtime:ci", 4}
	order, errs := run(true, scan{"agent turn 0", "runtime:agent", 0}, append(agentTurns, other)...)
	if order[1] != other.who {
		t.Errorf("scans ran in the order %v: another principal's grep waited behind a scan of each of the agent's turns", order)
	}
	if len(errs) > 0 {
		t.Errorf("control: greps of src refused: %v", errs)
	}

	flood := scan{"session A", "runtime:hook", 0}
	order, errs = run(true, flood, flood, flood, flood, scan{"session B", "runtime:hook", 4})
	if order[1] != "session B" {
		t.Errorf("scans ran in the order %v: a session's grep waited behind another session's flood of the same credential", order)
	}
	if len(errs) > 0 {
		t.Errorf("control: greps of src refused: %v", errs)
	}

	// Control: unscoped, each policy is an owner of its own, and the other
	// principal's policy is the last of five to have its turn.
	order, errs = run(false, scan{"agent turn 0", "", 0}, append(agentTurns, other)...)
	if i := slices.Index(order, other.who); i != 4 {
		t.Errorf("unscoped, scans ran in the order %v: want the policies in turn, the other one's last", order)
	}
	if len(errs) > 0 {
		t.Errorf("control: greps of src refused, unscoped: %v", errs)
	}
}

// TestScanQueueStaysConsistent: scans of many owners (three principals,
// three policies each) take and leave the slot at once, some giving up
// after maxScanWait: one holds the slot at a time, and when all are done
// nothing is left waiting and the slot is free. Run with -race.
func TestScanQueueStaysConsistent(t *testing.T) {
	defer func(d time.Duration) { maxScanWait = d }(maxScanWait)
	maxScanWait = 2 * time.Millisecond
	q := &scanQueue{}
	var held, most, had, gaveUp atomic.Int64
	var wg sync.WaitGroup
	for i := range 300 {
		o := scanOwner{principal: string(rune('a' + i%3)), policy: string(rune('x' + i%9/3))}
		wg.Go(func() {
			if !q.acquire(o) {
				gaveUp.Add(1)
				return
			}
			had.Add(1)
			if n := held.Add(1); n > most.Load() {
				most.Store(n)
			}
			runtime.Gosched()
			held.Add(-1)
			q.release()
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d scans held the slot at once", most.Load())
	}
	if had.Load() == 0 {
		t.Errorf("no scan had the slot (%d gave up)", gaveUp.Load())
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.busy || len(q.principals) > 0 || len(q.policies) > 0 || len(q.waiting) > 0 {
		t.Errorf("after every scan: busy %v, principals %v, policies %v, %d owners waiting", q.busy, q.principals, q.policies, len(q.waiting))
	}
}

package sandbox

import (
	"path/filepath"
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
// the engine), the policies of one principal's scans sharing its turn.
// The attack: with the agent's scan in the slot and one more from each of
// three other turns of its own waiting, another principal's scan is the
// next to run. The controls: that grep is allowed, and without a
// principal (a checker the engine did not scope) the policies still take
// turns as before.
func TestAttack18ScanSlotByPrincipal(t *testing.T) {
	slot := holdScanSlot(t)
	maxScanWait = time.Minute
	deny := map[string]domain.Access{"**/*.env": domain.AccessDeny}
	var agent []domain.TurnExecutionSecuritySnapshot
	var agentRoots []string
	for range 4 {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"src/a/b/": ""})
		agent, agentRoots = append(agent, profileSnapshot(t, ws, deny)), append(agentRoots, ws)
	}
	other := tempWorkspace(t)
	mkfiles(t, other, map[string]string{"src/a/x.go": "package a\n"})
	sOther := profileSnapshot(t, other, deny)

	entered, proceed, queued, wait := slot.entered, slot.proceed, slot.queued, slot.wait
	type result struct {
		who string
		err error
	}
	run := func(scoped bool) (order []string, otherErr error) {
		t.Helper()
		check := func(principal string) DecisionChecker {
			if !scoped {
				return DecisionChecker{}
			}
			return DecisionChecker{}.ForPrincipal(principal).(DecisionChecker)
		}
		done := make(chan result, 8)
		start := func(who, principal string, s *domain.TurnExecutionSecuritySnapshot, p string) {
			go func() {
				_, err := check(principal).ResolveFile(s, p, domain.AccessRead, true)
				done <- result{who, err}
			}()
		}
		start("agent turn 0", "runtime:agent", &agent[0], filepath.Join(agentRoots[0], "src"))
		wait(entered, "the agent's first scan")
		for i := 1; i < 4; i++ {
			start("agent turn", "runtime:agent", &agent[i], filepath.Join(agentRoots[i], "src"))
			wait(queued, "an agent scan waiting")
		}
		start("other principal", "runtime:ci", &sOther, filepath.Join(other, "src"))
		wait(queued, "the other principal's scan waiting")
		for n := range 5 {
			proceed <- struct{}{}
			r := <-done
			order = append(order, r.who)
			if r.who == "other principal" {
				otherErr = r.err
			}
			if n < 4 {
				wait(entered, "the next scan")
			}
		}
		return order, otherErr
	}

	order, err := run(true)
	if order[1] != "other principal" {
		t.Errorf("scans ran in the order %v: another principal's grep waited behind a scan of each of the agent's turns", order)
	}
	if err != nil {
		t.Errorf("control: the other principal's grep of src refused: %v", err)
	}
	// Control: unscoped, each policy is an owner of its own, and the other
	// principal's policy is the last of five to have its turn.
	order, err = run(false)
	if order[4] != "other principal" {
		t.Errorf("unscoped, scans ran in the order %v: want the policies in turn, the other one's last", order)
	}
	if err != nil {
		t.Errorf("control: the other principal's grep of src refused, unscoped: %v", err)
	}
}

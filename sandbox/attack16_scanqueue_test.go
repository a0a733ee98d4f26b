package sandbox

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack16DecisionScansQueueByOwner: a decision's scan of a tree for
// what a glob deny matches runs one at a time (6b797d8), but the scans
// waited in one queue in arrival order and without bound. Within its
// bounds a scan costs seconds (a tree of 3,000 directories with long names
// took 0.9 s here, one at the bound several), so an agent holding a runtime
// credential that asked for forty grep_files of its grown tree at once held
// every other workspace's grep and listing decisions behind minutes of
// its scans, and a Claude Code hook that answers after its timeout (60 s)
// lets Claude Code run the call unchecked: the agent's own Grep of a
// denied tree, asked behind its flood, ran. The slot now goes to the
// waiting owners (a filesystem policy) in turn, and a scan that has not
// had it within maxScanWait has its decision refused. The attack: with
// the agent's scan in the slot and two more of its own waiting, another
// workspace's scan is the next to run, and the agent's own next scan,
// waiting past the bound, is refused rather than held. The controls: the
// other workspace's grep is allowed, a tree there that holds a denied file
// is refused, and a scan alone is made.
func TestAttack16DecisionScansQueueByOwner(t *testing.T) {
	slot := holdScanSlot(t)
	deny := map[string]domain.Access{"**/*.env": domain.AccessDeny}
	wsA, wsB := tempWorkspace(t), tempWorkspace(t)
	mkfiles(t, wsA, map[string]string{"src/a/b/": "", "src/c/": ""})
	mkfiles(t, wsB, map[string]string{"src/a/x.go": "package a\n", "app/secrets/prod.env": "K=v\n"})
	sA, sB := profileSnapshot(t, wsA, deny), profileSnapshot(t, wsB, deny)
	grep := func(s *domain.TurnExecutionSecuritySnapshot, p string) error {
		_, err := DecisionChecker{}.ResolveFile(s, p, domain.AccessRead, true)
		return err
	}
	entered, proceed, queued, wait := slot.entered, slot.proceed, slot.queued, slot.wait
	type result struct {
		who string
		err error
	}
	done := make(chan result, 8)
	start := func(who string, s *domain.TurnExecutionSecuritySnapshot, p string) {
		go func() { done <- result{who, grep(s, p)} }()
	}

	// The agent's scan holds the slot; two more of its own wait, then
	// another workspace's.
	maxScanWait = time.Minute
	start("agent 1", &sA, filepath.Join(wsA, "src"))
	wait(entered, "the agent's first scan")
	start("agent 2", &sA, filepath.Join(wsA, "src", "a"))
	wait(queued, "the agent's second scan waiting")
	start("agent 3", &sA, filepath.Join(wsA, "src", "c"))
	wait(queued, "the agent's third scan waiting")
	start("other workspace", &sB, filepath.Join(wsB, "src"))
	wait(queued, "the other workspace's scan waiting")
	var order []string
	var other error
	for range 4 {
		proceed <- struct{}{}
		r := <-done
		order = append(order, r.who)
		if r.who == "other workspace" {
			other = r.err
		}
		if len(order) < 4 {
			wait(entered, "the next scan")
		}
	}
	if order[1] != "other workspace" {
		t.Errorf("scans ran in the order %v: the other workspace's grep waited behind the agent's queued scans", order)
	}
	if other != nil {
		t.Errorf("control: the other workspace's grep of src refused: %v", other)
	}

	// The agent's scan holds the slot; its next waits past the bound.
	maxScanWait = 200 * time.Millisecond
	start("agent 1", &sA, filepath.Join(wsA, "src"))
	wait(entered, "the agent's scan")
	next := make(chan error, 1)
	go func() { next <- grep(&sA, filepath.Join(wsA, "src", "a")) }()
	select {
	case err := <-next:
		var r CodedRefusal
		if !errors.As(err, &r) {
			t.Errorf("a scan that waited past %v: %v, want its decision refused", maxScanWait, err)
		}
		proceed <- struct{}{}
		<-done
	case <-time.After(10 * time.Second): // a bound on what is not expected
		t.Errorf("a scan waited 10 s behind another without being refused (a Claude Code hook's call runs unchecked after 60 s)")
		proceed <- struct{}{}
		<-done
		wait(entered, "the waiting scan")
		proceed <- struct{}{}
		<-next
	}

	// Controls: alone, each scan is made and answers as before.
	scanEntered, scanQueued = nil, nil
	if err := grep(&sB, filepath.Join(wsB, "src")); err != nil {
		t.Errorf("control: grep of src alone refused: %v", err)
	}
	if err := grep(&sB, filepath.Join(wsB, "app")); err == nil {
		t.Errorf("control: grep of app, which holds secrets/prod.env, allowed")
	}
}

package sandbox

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"turnstile/domain"
)

// TestRunReleasesAfterReturning: the names held for a command and its
// temp dir exist while it runs and are gone once WaitCleanup returns,
// after a Run that itself does not wait for them.
func TestRunReleasesAfterReturning(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `test -d .codex && test -d .agents && echo "$TMPDIR"`}}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), p) // not the run helper: it waits
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("the command did not see its held names: %+v %v", r, err)
	}
	tmp := strings.TrimSpace(string(r.Stdout))
	if tmp == "" {
		t.Fatal("no TMPDIR")
	}
	WaitCleanup()
	for _, p := range []string{ws + "/.codex", ws + "/.agents", tmp} {
		if exists(p) {
			t.Errorf("%s is left after WaitCleanup", p)
		}
	}
}

// TestWaitCleanupWaitsForEveryCleanup: WaitCleanup returns only once every
// cleanup started before it has finished, also while others start (a
// server's Run during a wait: no sync.WaitGroup reuse panic).
func TestWaitCleanupWaitsForEveryCleanup(t *testing.T) {
	const n = 50
	gate := make(chan struct{})
	var finished atomic.Int32
	for range n {
		afterRun(func() { <-gate; finished.Add(1) })
	}
	seen := make(chan int32)
	go func() { WaitCleanup(); seen <- finished.Load() }()
	var more sync.WaitGroup
	for range 8 { // new cleanups, and waiters, while the first wait runs
		more.Go(func() { afterRun(func() { finished.Add(1) }); WaitCleanup() })
	}
	close(gate)
	if got := <-seen; got < n {
		t.Fatalf("WaitCleanup returned with %d of the first %d cleanups finished", got, n)
	}
	more.Wait()
	WaitCleanup()
	if got := finished.Load(); got != n+8 {
		t.Fatalf("%d cleanups ran, want %d", got, n+8)
	}
}

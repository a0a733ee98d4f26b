package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"turnstile/domain"
)

func modeSnap(t *testing.T, m domain.Mode) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: m}, nil, domain.SourceComposer, domain.SnapshotInputs{Cwd: "/work/ws", WorkspaceRoot: "/work/ws"})
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestRunsNarrowingReachesALateStart: a narrowing change reported between
// a command's registration and the record of its snapshot (the window
// between deciding the start and running) still stops it, with the
// change's version as the cause; the controls: a command started at the
// change's version, and one under a snapshot the change widens, run on.
func TestRunsNarrowingReachesALateStart(t *testing.T) {
	var r runs
	full, auto := modeSnap(t, domain.ModeFullAccess), modeSnap(t, domain.ModeAutoAcceptEdits)
	late, lateRun, done1 := r.start(context.Background(), "t")
	defer done1()
	same, sameRun, done2 := r.start(context.Background(), "t")
	defer done2()
	if n := r.changed("t", auto, 7); n != 0 {
		t.Fatalf("stopped %d commands whose snapshot was not yet known", n)
	}
	r.started("t", lateRun, full, 4)
	r.started("t", sameRun, auto, 7)
	if cause := context.Cause(late); !errors.Is(cause, ErrPermissionsChanged) || cause.Error() != "permissions changed (version 7)" {
		t.Fatalf("the late start's cause: %v", cause)
	}
	if same.Err() != nil {
		t.Fatalf("a command started under the changed snapshot was stopped: %v", context.Cause(same))
	}
	// A widening change (auto_accept_edits → full_access) stops nothing.
	if n := r.changed("t", full, 9); n != 0 || same.Err() != nil {
		t.Fatalf("a widening change stopped %d commands", n)
	}
	// An older report (another instance's read model lagging) is ignored.
	if n := r.changed("t", modeSnap(t, domain.ModeSupervised), 8); n != 0 || same.Err() != nil {
		t.Fatalf("a stale report stopped %d commands", n)
	}
}

// TestStopWaitsForRegisteredWaits: a turn's stop (runs.cancel, as
// StopRuns) calls the kill a runner registered with OnStop under the
// runs' lock and its wait without it, and returns only after the wait has
// (review 194: a process of the command in a session of its own acted
// between the kill and the end of its namespace). The wait takes the
// lock (RunningTurns) to show it runs without it. Controls: a command
// not stopped has its kill and wait uncalled; a kill unregistered is not
// called; a command stopped already is killed at its registration.
func TestStopWaitsForRegisteredWaits(t *testing.T) {
	var r runs
	ctx, _, done := r.start(context.Background(), "t")
	defer done()
	other, _, doneOther := r.start(context.Background(), "u")
	defer doneOther()
	var waited, otherCalled, gone atomic.Bool
	killed, release := make(chan struct{}), make(chan struct{})
	unregister := OnStop(ctx, func() { close(killed) }, func() {
		r.turns() // the runs' lock is free
		<-release
		waited.Store(true)
	})
	defer unregister()
	OnStop(other, func() { otherCalled.Store(true) }, func() { otherCalled.Store(true) })
	OnStop(ctx, func() { gone.Store(true) }, nil)() // unregistered at once
	stopped := make(chan int)
	go func() { stopped <- r.cancel("t", ErrTurnEnded) }()
	select {
	case n := <-stopped:
		t.Fatalf("the stop returned (%d stopped) before the registered wait did", n)
	case <-killed:
	}
	if ctx.Err() == nil {
		t.Fatal("the kill was called before the context was cancelled")
	}
	close(release)
	if n := <-stopped; n != 1 || !waited.Load() {
		t.Fatalf("stopped %d, waited %v", n, waited.Load())
	}
	if otherCalled.Load() || gone.Load() {
		t.Fatalf("control: another turn's command (%v) or an unregistered kill (%v) was called", otherCalled.Load(), gone.Load())
	}
	var late atomic.Bool
	OnStop(ctx, func() { late.Store(true) }, nil)
	if !late.Load() {
		t.Fatal("a kill registered after the stop was not called at once")
	}
}

// TestSecondStopWaitsForTheFirst: a command stopped twice (an interrupt
// while a narrowing change's stop waits; a parent's end after the child's
// own) has the second stop return only after the first's wait (review
// 195: the second returned at once while the command's processes still
// acted). KillRuns (the read-model loop's) sends the kill and returns
// without waiting, its wait going on: a stop after it waits for it.
// Control: a stop of a command that registered no wait returns at once.
func TestSecondStopWaitsForTheFirst(t *testing.T) {
	for _, killFirst := range []bool{false, true} {
		r := &runs{}
		ctx, _, done := r.start(context.Background(), "t")
		release, waited := make(chan struct{}), make(chan struct{})
		unregister := OnStop(ctx, func() {}, func() { <-release; close(waited) })
		first := make(chan int, 1)
		if killFirst {
			// As KillRuns does.
			n, _, firsts := r.cancelNoWait("t", ErrTurnEnded)
			go waitAll(firsts)
			first <- n
		} else {
			go func() { first <- r.cancel("t", ErrTurnEnded) }()
		}
		second := make(chan int, 1)
		go func() { second <- r.cancel("t", ErrTurnEnded) }()
		select {
		case <-second:
			t.Fatalf("killFirst %v: the second stop returned before the first's wait", killFirst)
		case <-ctx.Done():
		}
		if killFirst {
			if n := <-first; n != 1 {
				t.Fatalf("the kill without a wait stopped %d", n)
			}
		}
		close(release)
		if n := <-second; n != 1 {
			t.Fatalf("the second stop stopped %d", n)
		}
		select {
		case <-waited:
		default:
			t.Fatalf("killFirst %v: the second stop returned before the first's wait had", killFirst)
		}
		if !killFirst {
			<-first
		}
		unregister()
		done()
	}
	// Control: no wait registered.
	r := &runs{}
	ctx, _, done := r.start(context.Background(), "t")
	defer done()
	defer OnStop(ctx, func() {}, nil)()
	if n := r.cancel("t", ErrTurnEnded); n != 1 {
		t.Fatalf("control: stopped %d", n)
	}
	if n := r.cancel("t", ErrTurnEnded); n != 1 {
		t.Fatalf("control: the second stop stopped %d", n)
	}
}

// TestStopAllStopsEveryRunAndLaterOnes: the server's stop (StopAllRuns)
// kills the commands of every turn, returns once their waits have, and a
// command registered afterwards is killed when its runner registers,
// before it runs. Control: before the stop, a registered command is not
// killed.
func TestStopAllStopsEveryRunAndLaterOnes(t *testing.T) {
	r := &runs{}
	var killed []string
	kill := func(name string) func() { return func() { killed = append(killed, name) } }
	ctxA, _, doneA := r.start(context.Background(), "a")
	defer doneA()
	ctxB, _, doneB := r.start(context.Background(), "b")
	defer doneB()
	release, waited := make(chan struct{}), make(chan struct{})
	defer OnStop(ctxA, kill("a"), func() { <-release; close(waited) })()
	defer OnStop(ctxB, kill("b"), nil)()
	if len(killed) != 0 || ctxA.Err() != nil {
		t.Fatalf("control: killed before the stop: %v %v", killed, ctxA.Err())
	}
	stopped := make(chan int, 1)
	go func() { stopped <- r.stopAll(ErrShuttingDown) }()
	select {
	case <-stopped:
		t.Fatal("the stop returned before the command's wait")
	case <-ctxB.Done():
	}
	close(release)
	if n := <-stopped; n != 2 {
		t.Fatalf("stopped %d commands, want 2", n)
	}
	<-waited
	if len(killed) != 2 || !errors.Is(context.Cause(ctxA), ErrShuttingDown) || !errors.Is(context.Cause(ctxB), ErrShuttingDown) {
		t.Fatalf("killed %v, causes %v %v", killed, context.Cause(ctxA), context.Cause(ctxB))
	}
	// A command that starts after the stop is killed as its runner
	// registers, and a later stop of it returns at once.
	ctxC, _, doneC := r.start(context.Background(), "c")
	defer doneC()
	defer OnStop(ctxC, kill("c"), nil)()
	if len(killed) != 3 || killed[2] != "c" || !errors.Is(context.Cause(ctxC), ErrShuttingDown) {
		t.Fatalf("a command started after the stop: killed %v, cause %v", killed, context.Cause(ctxC))
	}
	if n := r.cancel("c", ErrTurnEnded); n != 1 {
		t.Fatalf("the later command's turn end stopped %d", n)
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"turnstile/domain"
)

// ErrTurnEnded is the cause given to a running command's context when its
// turn ends (completed, interrupted, failed, or ended with its parent): the
// sandbox kills the command and every process it started.
var ErrTurnEnded = errors.New("the turn ended while the command ran")

// ErrPermissionsChanged is the cause given to a running command's context
// when a mid-turn change narrowed the snapshot it runs under: the sandbox
// kills it and every process it started.
var ErrPermissionsChanged = errors.New("permissions changed")

// ErrShuttingDown is the cause given to a running command's context when
// the server stops (StopAllRuns): the sandbox kills the command and every
// process it started, and a command starting after that is killed before
// it runs (the hundred-and-ninety-seventh review: a graceful stop left the
// commands running, and one that had cleared its parent-death signal
// outlived the server).
var ErrShuttingDown = errors.New("the server stopped while the command ran")

// run is one running command.
type run struct {
	cancel context.CancelCauseFunc
	// kills are what the runner registered to stop the command's
	// processes at once (OnStop), and stopped tells that the run was
	// stopped. Guarded by runs.mu.
	kills   map[*stopper]struct{}
	stopped bool
	// stopDone is closed once the first stop's waits have returned: a
	// later stop (an interrupt during a narrowing change's, a parent's
	// end after the child's own) waits on it too (review 195).
	stopDone chan struct{}
	// snap and version are the snapshot the command runs under and the
	// turn version it came from; version is -1 until the start is
	// recorded. Guarded by runs.mu.
	snap    *domain.TurnExecutionSecuritySnapshot
	version int64
}

// turnRuns is what runs knows of one turn with running commands.
type turnRuns struct {
	runs map[*run]struct{}
	// latest is the newest snapshot a change reported while commands ran
	// (nil: none), and latestVersion its version, so that a command whose
	// start is recorded after a change it did not see is still checked.
	latest        *domain.TurnExecutionSecuritySnapshot
	latestVersion int64
}

// stopper is what a runner registered to stop a command's processes
// (OnStop).
type stopper struct {
	kill, wait func()
}

// stop cancels rn's context with cause and calls what the runner
// registered to kill its processes, before returning: the caller (a
// turn's end, its children's) goes on knowing the processes were sent
// their kill, not that a goroutine will send it (the
// hundred-and-thirty-third review's test saw a command read what the
// agent wrote after the interrupt in that gap). It returns what the
// caller waits on once r.mu is released (waitAll): the waits the runner
// registered, or, for a later stop of the same command, the end of the
// first stop's (nil: nothing to wait for). Every wait returned is called.
// r.mu is held.
func (rn *run) stop(cause error) (wait func()) {
	wait, _ = rn.stopFirst(cause)
	return wait
}

// stopFirst is stop, and reports whether this was the command's first
// stop (whose wait must be called for a later one's to return).
func (rn *run) stopFirst(cause error) (wait func(), first bool) {
	rn.cancel(cause)
	if rn.stopped {
		if done := rn.stopDone; done != nil {
			return func() { <-done }, false
		}
		return nil, false
	}
	rn.stopped = true
	var waits []func()
	for k := range rn.kills {
		k.kill()
		if k.wait != nil {
			waits = append(waits, k.wait)
		}
	}
	done := make(chan struct{})
	rn.stopDone = done
	return func() {
		defer close(done)
		waitAll(waits)
	}, true
}

// waitAll calls waits at once and returns when all have returned.
func waitAll(waits []func()) {
	var wg sync.WaitGroup
	for _, w := range waits {
		wg.Go(w)
	}
	wg.Wait()
}

// runKey is the context key of the run a command's context belongs to.
type runKey struct{}

type runRef struct {
	r  *runs
	rn *run
}

// OnStop registers kill (which must be quick: a signal sent) to be called
// when the command whose context is ctx (the one the engine gives
// Runner.Run) is stopped by its turn's end or a narrowing change, by the
// stopping call itself rather than after it, and wait (nil: none), called
// after it without the engine's lock, to return once what kill killed
// can act no more (a process of the command in a session of its own dies
// with its PID namespace, as the leader's exit ends: the
// hundred-and-ninety-fourth review); the stopping call returns after
// both. A command stopped already is killed now. unregister, called
// before the command's processes are reaped (so that a kill cannot reach
// a pid used again), returns once no call of kill runs. A context that is
// not a command's registers nothing.
func OnStop(ctx context.Context, kill, wait func()) (unregister func()) {
	ref, ok := ctx.Value(runKey{}).(runRef)
	if !ok {
		return func() {}
	}
	ref.r.mu.Lock()
	defer ref.r.mu.Unlock()
	if ref.rn.stopped {
		kill()
		return func() {}
	}
	k := &stopper{kill, wait}
	if ref.rn.kills == nil {
		ref.rn.kills = map[*stopper]struct{}{}
	}
	ref.rn.kills[k] = struct{}{}
	return func() {
		ref.r.mu.Lock()
		delete(ref.rn.kills, k)
		ref.r.mu.Unlock()
	}
}

// runs tracks the commands this engine is running, by turn, so that ending
// a turn, or narrowing its permissions, stops them.
type runs struct {
	mu     sync.Mutex // guards byTurn, closed and every run in it
	byTurn map[string]*turnRuns
	// closed is the cause every command was stopped with (StopAllRuns);
	// a command registered after it starts stopped. nil: open.
	closed error
}

// start registers a command of turnID and returns its context (cancelled
// with a cause when the turn ends or its permissions narrow), the run (see
// started) and the function that unregisters it.
func (r *runs) start(ctx context.Context, turnID string) (context.Context, *run, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	rn := &run{cancel: cancel, version: -1}
	r.mu.Lock()
	if r.byTurn == nil {
		r.byTurn = map[string]*turnRuns{}
	}
	tr := r.byTurn[turnID]
	if tr == nil {
		tr = &turnRuns{runs: map[*run]struct{}{}, latestVersion: -1}
		r.byTurn[turnID] = tr
	}
	tr.runs[rn] = struct{}{}
	if r.closed != nil {
		// Stopped before it starts: what the runner registers (OnStop)
		// is called at once.
		rn.cancel(r.closed)
		rn.stopped = true
		rn.stopDone = make(chan struct{})
		close(rn.stopDone)
	}
	r.mu.Unlock()
	ctx = context.WithValue(ctx, runKey{}, runRef{r, rn})
	return ctx, rn, func() {
		r.mu.Lock()
		delete(tr.runs, rn)
		if len(tr.runs) == 0 && r.byTurn[turnID] == tr {
			delete(r.byTurn, turnID)
		}
		r.mu.Unlock()
		cancel(nil)
	}
}

// started records the snapshot rn runs under (taken at version); a
// narrowing change already reported stops it at once.
func (r *runs) started(turnID string, rn *run, snap *domain.TurnExecutionSecuritySnapshot, version int64) {
	var waits []func()
	defer func() { waitAll(waits) }()
	r.mu.Lock()
	defer r.mu.Unlock()
	rn.snap, rn.version = snap, version
	if tr := r.byTurn[turnID]; tr != nil && tr.latest != nil && tr.latestVersion > version && domain.SandboxNarrows(snap, tr.latest) {
		if w := rn.stop(permissionsChanged(tr.latestVersion)); w != nil {
			waits = append(waits, w)
		}
	}
}

// changed stops the commands of turnID whose snapshot the turn's snapshot
// snap (taken at version) narrows; it returns how many it stopped.
func (r *runs) changed(turnID string, snap *domain.TurnExecutionSecuritySnapshot, version int64) int {
	n, waits, _ := r.changedNoWait(turnID, snap, version)
	waitAll(waits)
	return n
}

// changedNoWait is changed returning the waits to call instead of
// calling them, and of those the first stops' (which must be called).
func (r *runs) changedNoWait(turnID string, snap *domain.TurnExecutionSecuritySnapshot, version int64) (n int, waits, firsts []func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tr := r.byTurn[turnID]
	if tr == nil || version <= tr.latestVersion {
		return 0, nil, nil
	}
	tr.latest, tr.latestVersion = snap, version
	for rn := range tr.runs {
		if rn.snap != nil && rn.version < version && domain.SandboxNarrows(rn.snap, snap) {
			if w, first := rn.stopFirst(permissionsChanged(version)); w != nil {
				waits = append(waits, w)
				if first {
					firsts = append(firsts, w)
				}
			}
			n++
		}
	}
	return n, waits, firsts
}

func permissionsChanged(version int64) error {
	return fmt.Errorf("%w (version %d)", ErrPermissionsChanged, version)
}

// cancel stops every command running for turnID with cause; it returns how
// many it stopped.
func (r *runs) cancel(turnID string, cause error) int {
	n, waits, _ := r.cancelNoWait(turnID, cause)
	waitAll(waits)
	return n
}

// cancelNoWait is cancel returning the waits to call instead of calling
// them, and of those the first stops' (which must be called).
func (r *runs) cancelNoWait(turnID string, cause error) (n int, waits, firsts []func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tr := r.byTurn[turnID]; tr != nil {
		for rn := range tr.runs {
			if w, first := rn.stopFirst(cause); w != nil {
				waits = append(waits, w)
				if first {
					firsts = append(firsts, w)
				}
			}
			n++
		}
	}
	return n, waits, firsts
}

// stopAll stops every command with cause, and every command registered
// later before it runs; it returns how many it stopped, once their waits
// have returned.
func (r *runs) stopAll(cause error) int {
	var waits []func()
	n := 0
	r.mu.Lock()
	r.closed = cause
	for _, tr := range r.byTurn {
		for rn := range tr.runs {
			if w := rn.stop(cause); w != nil {
				waits = append(waits, w)
			}
			n++
		}
	}
	r.mu.Unlock()
	waitAll(waits)
	return n
}

// turns returns the turns with running commands.
func (r *runs) turns() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.byTurn))
	for id := range r.byTurn {
		out = append(out, id)
	}
	return out
}

// RunningTurns returns the turns for which this engine runs a command now.
func (e *Engine) RunningTurns() []string { return e.running.turns() }

// StopRuns kills every command this engine runs for turnID, naming status
// (the turn's end) as the cause, and returns once what the runners
// registered to wait for has returned (OnStop: the processes can act no
// more); another instance's end of the turn reaches this engine through
// its read models (see cmd/turnstile). It returns how many commands it
// stopped.
func (e *Engine) StopRuns(turnID, status string) int {
	return e.running.cancel(turnID, fmt.Errorf("%w (%s)", ErrTurnEnded, status))
}

// StopNarrowedRuns kills the commands this engine runs for turnID whose
// snapshot snap (the turn's since version) narrows, naming the change as
// the cause. The engine calls it when it appends a change; a change
// appended by another instance reaches this engine through its read models
// (see cmd/turnstile). It returns how many commands it stopped.
func (e *Engine) StopNarrowedRuns(turnID string, snap *domain.TurnExecutionSecuritySnapshot, version int64) int {
	return e.running.changed(turnID, snap, version)
}

// KillRuns is StopRuns returning once the kills are sent, without waiting
// for what they killed to end (that wait goes on, on its own goroutine):
// for the loop that stops what another instance ended (cmd/turnstile),
// which one turn's command slow to end must not hold from the next turn's
// kill (review 195).
func (e *Engine) KillRuns(turnID, status string) int {
	n, _, firsts := e.running.cancelNoWait(turnID, fmt.Errorf("%w (%s)", ErrTurnEnded, status))
	go waitAll(firsts)
	return n
}

// StopAllRuns kills every command this engine runs, and every command it
// starts afterwards before it runs anything, naming the server's stop as
// the cause; it returns how many it stopped, once what the runners
// registered to wait on has returned (OnStop). The server calls it when it
// stops, before it waits for the requests in flight.
func (e *Engine) StopAllRuns() int { return e.running.stopAll(ErrShuttingDown) }

// KillNarrowedRuns is StopNarrowedRuns returning once the kills are sent
// (KillRuns).
func (e *Engine) KillNarrowedRuns(turnID string, snap *domain.TurnExecutionSecuritySnapshot, version int64) int {
	n, _, firsts := e.running.changedNoWait(turnID, snap, version)
	go waitAll(firsts)
	return n
}

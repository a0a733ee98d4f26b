package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrTurnEnded is the cause given to a running command's context when its
// turn ends (completed, interrupted, failed, or ended with its parent): the
// sandbox kills the command and every process it started.
var ErrTurnEnded = errors.New("the turn ended while the command ran")

// runs tracks the commands this engine is running, by turn, so that ending
// a turn stops them: access ends with the turn.
type runs struct {
	mu     sync.Mutex                                       // guards byTurn
	byTurn map[string]map[*context.CancelCauseFunc]struct{} // turn id → cancel of each running command
}

// start registers a command of turnID and returns its context (cancelled
// with a cause when the turn ends) and the function that unregisters it.
func (r *runs) start(ctx context.Context, turnID string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := &cancel
	r.mu.Lock()
	if r.byTurn == nil {
		r.byTurn = map[string]map[*context.CancelCauseFunc]struct{}{}
	}
	if r.byTurn[turnID] == nil {
		r.byTurn[turnID] = map[*context.CancelCauseFunc]struct{}{}
	}
	r.byTurn[turnID][key] = struct{}{}
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		delete(r.byTurn[turnID], key)
		if len(r.byTurn[turnID]) == 0 {
			delete(r.byTurn, turnID)
		}
		r.mu.Unlock()
		cancel(nil)
	}
}

// cancel stops every command running for turnID with cause; it returns how
// many it stopped.
func (r *runs) cancel(turnID string, cause error) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for c := range r.byTurn[turnID] {
		(*c)(cause)
		n++
	}
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
// (the turn's end) as the cause; another instance's end of the turn reaches
// this engine through its read models (see cmd/turnstile). It returns how
// many commands it stopped.
func (e *Engine) StopRuns(turnID, status string) int {
	return e.running.cancel(turnID, fmt.Errorf("%w (%s)", ErrTurnEnded, status))
}

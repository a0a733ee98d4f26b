// Package turngen writes synthetic turns through the engine, every event as
// the server would record it (the same commands, snapshots, hash chain and
// fsync per commit), to fill a store for benchmarks and tests: `turnstile
// bench-fill`, internal/genstore, and the benchmarks of domain/engine and
// api. Its workspaces need not exist: the engine runs without the server's
// resource checker.
package turngen

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// Turn names one synthetic turn; the rest of it is fixed (see Write).
type Turn struct {
	ID          string
	WorkspaceID string
	// ThreadID and Input are optional.
	ThreadID string
	Input    json.RawMessage
	// Root is the workspace root (and working directory).
	Root string
	// Open leaves the turn open with its last approval request pending.
	Open bool
}

// Calls is the number of tool calls of a turn; EventsPerTurn is the number
// of events of a closed one.
const (
	Calls         = 14
	EventsPerTurn = 20
)

var readArgs = json.RawMessage(`{"path":"src/main.go"}`)

// Write writes turn t as a supervised turn: a start (3 events), Calls tool
// calls, each a read_file allowed by the profile except every seventh, an
// exec_command that asks and is answered allow_once, and an end:
// EventsPerTurn events. An open turn stops at its last request, pending.
// It returns the number of events written.
func Write(ctx context.Context, eng *engine.Engine, t Turn) (int, error) {
	res, err := eng.Execute(ctx, t.ID, &turn.StartTurn{TurnID: t.ID, WorkspaceID: t.WorkspaceID, ThreadID: t.ThreadID,
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: t.Root, Cwd: t.Root},
		Input: t.Input})
	if err != nil {
		return 0, err
	}
	n := len(res.Events)
	for c := range Calls {
		inv := domain.Invocation{ToolName: "read_file", Arguments: readArgs}
		if c%7 == 6 {
			inv = domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(fmt.Sprintf(`{"cmd":["go","test","./pkg%d/..."]}`, c))}
		}
		res, err := eng.Execute(ctx, t.ID, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", c), Invocation: inv})
		if err != nil {
			return n, err
		}
		n += len(res.Events)
		if res.Approval == nil {
			continue
		}
		if t.Open && c == Calls-1 {
			return n, nil
		}
		r, err := eng.Execute(ctx, t.ID, &turn.RespondApproval{RequestID: res.Approval.Request.RequestID, Resolution: domain.ResolutionAllowOnce})
		if err != nil {
			return n, err
		}
		n += len(r.Events)
	}
	res, err = eng.Execute(ctx, t.ID, &turn.EndTurn{Status: turn.StatusCompleted})
	if err != nil {
		return n, err
	}
	return n + len(res.Events), nil
}

// Fill describes a run of Write over many turns.
type Fill struct {
	// Turns is how many turns to write; Workers how many at once (their
	// decisions share group commits).
	Turns, Workers int
	// Turn names turn i (0 <= i < Turns).
	Turn func(i int) Turn
	// Progress, when set, is called after each turn with the turns and
	// events written so far (from the workers' goroutines).
	Progress func(turns, events int64)
}

// Run writes f.Turns turns and returns the number of events written. It
// stops at the first error and returns it.
func (f Fill) Run(ctx context.Context, eng *engine.Engine) (int64, error) {
	var next, turns, events atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range f.Workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(f.Turns) {
					return
				}
				n, err := Write(ctx, eng, f.Turn(int(i)))
				e := events.Add(int64(n))
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(f.Turns))
					return
				}
				if d := turns.Add(1); f.Progress != nil {
					f.Progress(d, e)
				}
			}
		})
	}
	wg.Wait()
	return events.Load(), firstErr
}

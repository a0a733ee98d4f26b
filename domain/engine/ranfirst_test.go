package engine_test

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// narrowingChecker refuses every file once narrowed: a change of the file
// rules (a deny added) between a person's allow and the call's retry.
type narrowingChecker struct{ narrowed *atomic.Bool }

func (c narrowingChecker) CheckFile(*domain.TurnExecutionSecuritySnapshot, string, domain.Access) error {
	if c.narrowed.Load() {
		return &refusal{"outside_allowed_roots", "narrowed"}
	}
	return nil
}

func (narrowingChecker) CheckURL(*domain.TurnExecutionSecuritySnapshot, string) error { return nil }

// TestRanFirstRetryIsJudged (the eighty-second review): a call the runtime
// reported as run before it was asked is not final by that report. Its
// retry after a person's allow is judged as the snapshot then stands, as
// the retry of a call not reported is (the control); before, a report made
// first replayed the allow over a refusal.
func TestRanFirstRetryIsJudged(t *testing.T) {
	f := newFixture(t)
	var narrowed atomic.Bool
	eng := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Checker: narrowingChecker{&narrowed}})
	start(t, eng, "t1", domain.ModeSupervised)
	write := func(call string) turn.Command {
		return &turn.EvaluateTool{ToolCallID: call, Invocation: domain.Invocation{ToolName: "apply_patch",
			Arguments: json.RawMessage(`{"patch":"*** Update File: src/a.go\n"}`)}}
	}
	if _, err := eng.Execute(ctx, "t1", &turn.RecordToolRun{ToolCallID: "ran-first", Invocation: domain.Invocation{ToolName: "apply_patch",
		Arguments: json.RawMessage(`{"patch":"*** Update File: src/a.go\n"}`)}}); err != nil {
		t.Fatal(err)
	}
	for _, call := range []string{"ran-first", "control"} {
		res, err := eng.Execute(ctx, "t1", write(call))
		if err != nil || res.Decision.Behavior != domain.BehaviorAsk {
			t.Fatalf("%s: %+v %v, want ask", call, res.Decision, err)
		}
		if _, err := eng.Execute(ctx, "t1", &turn.RespondApproval{RequestID: turn.RequestID("t1", call), Resolution: domain.ResolutionAllowOnce}); err != nil {
			t.Fatal(err)
		}
	}
	// The file rules narrow with a change of the turn's permissions (a new
	// snapshot: a retry under the snapshot its allow was given in replays
	// it).
	narrowed.Store(true)
	if _, err := eng.Execute(ctx, "t1", &turn.ChangeProfile{Profile: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}}); err != nil {
		t.Fatal(err)
	}
	for _, call := range []string{"control", "ran-first"} {
		res, err := eng.Execute(ctx, "t1", write(call))
		if err != nil || res.Decision.Behavior != domain.BehaviorDeny {
			t.Errorf("%s: the retry after the narrowing: %+v %v, want deny", call, res.Decision, err)
		}
	}
}

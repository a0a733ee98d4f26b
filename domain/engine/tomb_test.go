package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"turnstile/adapters/logstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestEndedTurnRefusedWithoutReplay: a decision on a new tool call of an
// ended turn that left the cache is refused (422, the turn has ended)
// without loading the turn again (twenty-fourth review: each such refusal
// replayed the turn's whole stream). A known call is still answered from
// the store (its first answer, replayed), bad input is still a field
// error, and a report of a run is refused too. Control: the refusal is
// the one the turn's state gives when it is cached.
func TestEndedTurnRefusedWithoutReplay(t *testing.T) {
	st, err := logstore.Open(filepath.Join(t.TempDir(), "events"), logstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, engine.Config{Kernel: kernel, MaxCachedTurns: 4})
	read := func(id, call string) (turn.Outcome, error) {
		args, _ := json.Marshal(map[string]any{"path": "/w/a.txt"})
		res, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: call, Invocation: domain.Invocation{ToolName: "read_file", Arguments: args}})
		return res.Outcome, err
	}
	start := func(id string) {
		t.Helper()
		if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "w", ThreadID: "th-" + id,
			Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: "/w"}}); err != nil {
			t.Fatal(err)
		}
	}
	start("ended")
	if out, err := read("ended", "known"); err != nil || out.Decision.Behavior != domain.BehaviorAllow {
		t.Fatalf("a read in the live turn: %v %+v", err, out)
	}
	if _, err := eng.Execute(ctx, "ended", &turn.EndTurn{Status: turn.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	_, cachedErr := read("ended", "new-0") // control: the state's refusal
	var ill *turn.IllegalTransitionError
	if !errors.As(cachedErr, &ill) {
		t.Fatalf("control: a new call on the cached ended turn: %v, want an illegal transition", cachedErr)
	}
	for i := range 8 {
		start(fmt.Sprintf("other-%d", i))
	}
	if eng.Cached("ended") {
		t.Fatal("the ended turn is still cached after 8 others in a cache of 4")
	}
	for i := 1; i <= 3; i++ {
		_, err := read("ended", fmt.Sprintf("new-%d", i))
		if err == nil || err.Error() != cachedErr.Error() {
			t.Fatalf("a new call on the evicted ended turn: %v, want %v", err, cachedErr)
		}
		if eng.Cached("ended") {
			t.Fatalf("refusing a new call on the ended turn loaded it again")
		}
	}
	if _, err := eng.Execute(ctx, "ended", &turn.RecordToolRun{ToolCallID: "ran", Invocation: domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"/w/a.txt"}`)}}); !errors.As(err, &ill) || eng.Cached("ended") {
		t.Fatalf("a report of a run on the ended turn: %v (cached %v)", err, eng.Cached("ended"))
	}
	var field *domain.FieldError
	if _, err := eng.Execute(ctx, "ended", &turn.EvaluateTool{ToolCallID: "bad", Invocation: domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`[1]`)}}); !errors.As(err, &field) {
		t.Fatalf("bad input on the ended turn: %v, want a field error", err)
	}
	out, err := read("ended", "known")
	if err != nil || !out.Replayed || out.Decision.Behavior != domain.BehaviorAllow {
		t.Fatalf("the known call on the ended turn: %v %+v, want its first answer replayed", err, out)
	}
}

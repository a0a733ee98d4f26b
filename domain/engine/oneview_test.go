package engine_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestCommandViewEqualsReadModel: the view a command answers with (the
// engine's turn.Summary) equals the read model's fold of the same events, after each step of a turn that asks, is
// answered and ends. Both folds take their statuses from the transition
// table, so a divergence in either fails here.
func TestCommandViewEqualsReadModel(t *testing.T) {
	f := newFixture(t)
	steps := []struct {
		name string
		cmd  turn.Command
	}{
		{"start", &turn.StartTurn{TurnID: "t1", WorkspaceID: "ws", ThreadID: "th", Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: "/work/repo"}}},
		{"ask", &turn.EvaluateTool{ToolCallID: "c1", Invocation: domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["make"]}`)}}},
		{"answer", &turn.RespondApproval{RequestID: turn.RequestID("t1", "c1"), Resolution: domain.ResolutionAllowForTurn}},
		{"end", &turn.EndTurn{Status: turn.StatusCompleted}},
	}
	statuses := []turn.Status{}
	for _, s := range steps {
		res, err := f.eng.Execute(ctx, "t1", s.cmd)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		f.sync(res.Position)
		got := res.Turn
		want, ok := f.proj.Turn("t1")
		if !ok {
			t.Fatalf("%s: the read model has no turn", s.name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the command's view differs from the read model's\n command %+v\n read    %+v", s.name, got, want)
		}
		statuses = append(statuses, got.Status)
	}
	// Control: the steps did move the turn through the machine, so the
	// comparison above is not of four identical views.
	if want := []turn.Status{turn.StatusInProgress, turn.StatusAwaitingApproval, turn.StatusInProgress, turn.StatusCompleted}; !reflect.DeepEqual(statuses, want) {
		t.Fatalf("statuses %v, want %v", statuses, want)
	}
}

package turn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"turnstile/domain"
)

// TestStartInputKeepsOldRequestHashes: a start request without input or
// client parameters hashes as it did before they existed, so a repeat of a
// turn started by an older build is still recognised as the same turn.
func TestStartInputKeepsOldRequestHashes(t *testing.T) {
	c := &StartTurn{WorkspaceID: "ws", ThreadID: "th", Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: Inputs{WorkspaceRoot: "/w"}}
	old, _ := json.Marshal(struct {
		WorkspaceID  string                 `json:"workspace_id"`
		ThreadID     string                 `json:"thread_id"`
		Profile      *domain.ProfileRequest `json:"profile"`
		Inputs       Inputs                 `json:"inputs"`
		ParentTurnID string                 `json:"parent_turn_id"`
		TaskCap      *domain.TaskCap        `json:"task_cap"`
	}{c.WorkspaceID, c.ThreadID, c.Profile, c.Inputs, c.ParentTurnID, c.TaskCap})
	sum := sha256.Sum256(old)
	if c.RequestHash() != hex.EncodeToString(sum[:]) {
		t.Fatal("the request hash of a start without input changed")
	}
	with := *c
	with.Input = json.RawMessage(`[{"type":"text","text":"hi"}]`)
	if with.RequestHash() == c.RequestHash() {
		t.Fatal("the input is not part of the request")
	}
}

// TestRecordToolRun: a reported run is recorded once per tool call id, with
// the decision the call had (none when it was never decided), and never in
// a turn that is over.
func TestRecordToolRun(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := NewState("t1")
	apply := func(cmd Command) ([]Event, Outcome, error) {
		evs, out, err := Decide(st, cmd)
		for i := range evs {
			evs[i].Version = st.Version + 1
			Evolve(st, &evs[i])
		}
		return evs, out, err
	}
	m := Meta{Now: now, Actor: domain.Actor{Name: "hook"}}
	if _, _, err := apply(&StartTurn{Meta: m, TurnID: "t1", WorkspaceID: "ws", Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised},
		Inputs: Inputs{WorkspaceRoot: "/w"}, Input: json.RawMessage(`[{"type":"text","text":"do it"}]`)}); err != nil {
		t.Fatal(err)
	}
	read := domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"/w/a"}`)}
	bash := domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":"ls"}`)}
	if _, _, err := apply(&EvaluateTool{Meta: m, ToolCallID: "c1", Invocation: read, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   string
		inv  domain.Invocation
		want string
	}{{"c1", read, "allow"}, {"c2", bash, "none"}} {
		evs, _, err := apply(&RecordToolRun{Meta: m, ToolCallID: c.id, Invocation: c.inv, ClientTool: "X", ResultBytes: 3})
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: %v %v", c.id, evs, err)
		}
		if got := evs[0].Payload.(*ToolCompleted); got.Decision != c.want || got.ToolCallID != c.id || got.ResultBytes != 3 {
			t.Errorf("%s: %+v", c.id, got)
		}
	}
	if evs, out, err := apply(&RecordToolRun{Meta: m, ToolCallID: "c1", Invocation: read}); err != nil || len(evs) != 0 || !out.Replayed {
		t.Errorf("a second report of c1: %v %+v %v", evs, out, err)
	}
	if _, _, err := apply(&EndTurn{Meta: m, Status: StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := apply(&RecordToolRun{Meta: m, ToolCallID: "c3", Invocation: read}); !errors.Is(err, ErrIllegalTransition) {
		t.Errorf("a report after the turn ended: %v", err)
	}
	if PromptText(json.RawMessage(`[{"type":"text","text":"a"},{"type":"image","url":"x"},{"type":"text","text":"b"}]`)) != "a\n\nb" {
		t.Error("PromptText")
	}
}

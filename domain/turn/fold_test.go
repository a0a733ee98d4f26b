package turn

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/looplab/fsm"

	"turnstile/domain"
)

// unregistered is a payload no registry knows, the control for
// TestEvolveHandlesEveryRegisteredEvent.
type unregistered struct{}

func (unregistered) EventType() string { return "test.unregistered" }

// startedState is a turn folded from its start event.
func startedState(t *testing.T) *State {
	t.Helper()
	s := NewState("t1")
	if !evolve(s, &Event{Type: TypeTurnStarted, TurnID: "t1", OccurredAt: time.Unix(0, 0), Payload: &TurnStarted{TurnID: "t1"}}) {
		t.Fatal("the start event was not folded")
	}
	return s
}

// TestEvolveHandlesEveryRegisteredEvent walks the event registry: an event
// type that is registered (so stored and replayed) but that Evolve does not
// fold would be silently ignored on every load, so it fails here. The
// control shows the walk can fail: an unknown payload is reported.
func TestEvolveHandlesEveryRegisteredEvent(t *testing.T) {
	types := EventRegistry.Types()
	if len(types) < 10 {
		t.Fatalf("only %d registered types", len(types))
	}
	for _, typ := range types {
		v, _ := EventRegistry.Version(typ)
		p, err := EventRegistry.New(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		if !evolve(startedState(t), &Event{Type: typ, TurnID: "t1", Payload: p}) {
			t.Errorf("%s is registered but Evolve does not fold it", typ)
		}
	}
	if evolve(startedState(t), &Event{Type: "test.unregistered", TurnID: "t1", Payload: unregistered{}}) {
		t.Fatal("control: an unknown payload was reported as folded")
	}
}

// TestStatusesComeFromTheTable: Evolve's status after each move is the
// transition table's destination, and a move the table refuses leaves the
// state where it is (an approval request on a completed turn).
func TestStatusesComeFromTheTable(t *testing.T) {
	s := startedState(t)
	if s.Status != StatusInProgress {
		t.Fatalf("after start: %s", s.Status)
	}
	open := &ApprovalRequested{ToolCallID: "c1", Request: ApprovalRequest{RequestID: "r1"}}
	evolve(s, &Event{Type: TypeApprovalRequested, Payload: open})
	if want := table[transKey{StatusInProgress, TransOpenRequest}]; s.Status != want || want != StatusAwaitingApproval {
		t.Fatalf("after a request: %s, table %s", s.Status, want)
	}
	evolve(s, &Event{Type: TypeApprovalResolved, Payload: &ApprovalResolved{RequestID: "r1"}})
	if s.Status != StatusInProgress || s.Approvals["r1"].Status != RequestResolved {
		t.Fatalf("after the last resolution: %s, request %s", s.Status, s.Approvals["r1"].Status)
	}
	// A second resolution of the same request changes nothing.
	evolve(s, &Event{Type: TypeApprovalResolved, Payload: &ApprovalResolved{RequestID: "r1"}})
	if s.Open != 0 {
		t.Fatalf("a repeated resolution counted twice: open %d", s.Open)
	}
	evolve(s, &Event{Type: TypeTurnCompleted, Payload: &TurnCompleted{}})
	if s.Status != StatusCompleted {
		t.Fatalf("after completion: %s", s.Status)
	}
	evolve(s, &Event{Type: TypeApprovalRequested, Payload: &ApprovalRequested{ToolCallID: "c2", Request: ApprovalRequest{RequestID: "r2"}}})
	if s.Status != StatusCompleted {
		t.Fatalf("a request folded on a completed turn moved it to %s", s.Status)
	}
}

// TestDecideAnswersTheRequestEvolveKeeps: the request Decide answers with
// when a call asks is the request Evolve folds from the event it wrote
// (one constructor, openApproval), field for field; so is the approval it
// answers with when a person resolves it (state from the request table,
// resolution and reason as recorded).
func TestDecideAnswersTheRequestEvolveKeeps(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	m := Meta{Now: now, Actor: domain.Actor{Name: "agent"}, CorrelationID: "c"}
	s := NewState("t1")
	apply := func(cmd Command) Outcome {
		evs, out, err := Decide(s, cmd)
		if err != nil {
			t.Fatal(err)
		}
		for i := range evs {
			evs[i].Version = s.Version + 1
			Evolve(s, &evs[i])
		}
		return out
	}
	apply(&StartTurn{Meta: m, TurnID: "t1", WorkspaceID: "ws", Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: Inputs{WorkspaceRoot: "/work/repo"}})
	out := apply(&EvaluateTool{Meta: m, ToolCallID: "c1", Invocation: domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["make"]}`)}, TTL: time.Minute})
	if out.Approval == nil || out.Decision.Behavior != domain.BehaviorAsk {
		t.Fatalf("the call did not ask: %+v", out)
	}
	id := out.Approval.Request.RequestID
	kept := s.Approvals[id]
	if kept == nil || !reflect.DeepEqual(*out.Approval, *kept) {
		t.Fatalf("Decide answered %+v\nEvolve kept  %+v", out.Approval, kept)
	}
	out = apply(&RespondApproval{Meta: m, RequestID: id, Resolution: domain.ResolutionAllowForTurn})
	if out.Approval == nil || out.Approval.Status != RequestResolved || out.Approval.ResolvedReason == "" {
		t.Fatalf("the answer did not resolve: %+v", out.Approval)
	}
	if kept := s.Approvals[id]; !reflect.DeepEqual(*out.Approval, *kept) {
		t.Fatalf("Decide answered %+v\nEvolve kept  %+v", out.Approval, kept)
	}
}

// TestRequestMovesComeFromTheTable: RequestMove agrees with looplab/fsm
// over RequestTransitions for every request state and every event that
// names a request, and an event that names none never moves one.
func TestRequestMovesComeFromTheTable(t *testing.T) {
	moves := map[string]Payload{RequestTransOpen: &ApprovalRequested{}, RequestTransResolve: &ApprovalResolved{}}
	legal := 0
	for _, from := range []RequestStatus{RequestNone, RequestOpen, RequestResolved} {
		for trans, p := range moves {
			m := fsm.NewFSM(string(from), RequestTransitions, nil)
			to, ok := RequestMove(from, p)
			if ok != m.Can(trans) {
				t.Errorf("%s --%s--> RequestMove says %v, fsm says %v", from, trans, ok, m.Can(trans))
			}
			if ok {
				legal++
				if err := m.Event(context.Background(), trans); err != nil || RequestStatus(m.Current()) != to {
					t.Errorf("%s --%s--> %s, fsm reaches %s (%v)", from, trans, to, m.Current(), err)
				}
			} else if to != from {
				t.Errorf("%s --%s--> refused but moved to %s", from, trans, to)
			}
		}
		if to, ok := RequestMove(from, &TurnCompleted{}); ok || to != from {
			t.Errorf("a turn event moved a %s request to %s", from, to)
		}
	}
	if legal != 2 {
		t.Fatalf("control: %d legal moves, want 2 (open, resolve)", legal)
	}
}

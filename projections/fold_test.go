package projections_test

import (
	"reflect"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// TestBothFoldsAgreeOnEveryHistory folds one history through the engine's
// fold (turn.Evolve) and the read model's (Projector.Apply) and compares the
// turn, its open count and every request's state after each event. The
// history holds what Decide never writes but a store may hold (a reused
// request id opened twice, a request resolved twice, the resolution of a
// request never opened, a request opened on an ended turn): both folds take
// every move from the transition tables through turn.Summary.Apply, so they
// must agree on these too. The control shows the history did move the turn
// and count past one open request.
func TestBothFoldsAgreeOnEveryHistory(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	opened := func(id string) turn.Payload {
		return &turn.ApprovalRequested{ToolCallID: "call-" + id, Request: turn.ApprovalRequest{RequestID: id, TurnID: "t1", Details: []domain.Detail{}}}
	}
	resolved := func(id string) turn.Payload {
		return &turn.ApprovalResolved{RequestID: id, ToolCallID: "call-" + id, Resolution: domain.ResolutionAllowOnce}
	}
	history := []turn.Payload{
		&turn.TurnStarted{TurnID: "t1", WorkspaceID: "ws", ThreadID: "th"},
		&turn.ProfileSelected{Profile: domain.TurnPermissionProfileSnapshot{Mode: domain.ModeSupervised}},
		&turn.SecuritySnapshotResolved{},
		opened("r1"),
		opened("r1"), // a reused request id
		opened("r2"),
		resolved("r1"),
		resolved("r1"), // resolved twice
		resolved("r9"), // never opened
		resolved("r2"),
		&turn.ChildTurnStarted{ChildTurnID: "t2"},
		&turn.TurnCompleted{},
		opened("r3"), // on an ended turn
		resolved("r3"),
	}
	s := turn.NewState("t1")
	p := projections.New()
	var statuses []turn.Status
	maxOpen := 0
	for i, pl := range history {
		e := &turn.Event{Type: pl.EventType(), TurnID: "t1", OccurredAt: at.Add(time.Duration(i) * time.Second), Payload: pl,
			Version: int64(i), Position: eventstore.Position{Commit: uint64(i + 1), Prepare: uint64(i + 1)}}
		turn.Evolve(s, e)
		if err := p.Apply(e); err != nil {
			t.Fatalf("event %d (%s): %v", i, e.Type, err)
		}
		view, ok := p.Turn("t1")
		if !ok {
			t.Fatalf("event %d: the read model has no turn", i)
		}
		if !reflect.DeepEqual(s.Summary, view) {
			t.Fatalf("event %d (%s): the folds differ\n engine %+v\n read   %+v", i, e.Type, s.Summary, view)
		}
		for id, r := range s.Approvals {
			a, ok := p.Approval(id)
			if !ok || (a.Status == projections.ApprovalPending) != (r.Status == turn.RequestOpen) {
				t.Fatalf("event %d: request %s is %s in the engine, %q in the read model", i, id, r.Status, a.Status)
			}
		}
		if _, ok := p.Approval("r9"); ok {
			t.Fatalf("event %d: the read model holds a request never opened", i)
		}
		statuses = append(statuses, view.Status)
		maxOpen = max(maxOpen, view.Open)
	}
	want := []turn.Status{turn.StatusInProgress, turn.StatusInProgress, turn.StatusInProgress,
		turn.StatusAwaitingApproval, turn.StatusAwaitingApproval, turn.StatusAwaitingApproval, turn.StatusAwaitingApproval,
		turn.StatusAwaitingApproval, turn.StatusAwaitingApproval, turn.StatusInProgress, turn.StatusInProgress,
		turn.StatusCompleted, turn.StatusCompleted, turn.StatusCompleted}
	if !reflect.DeepEqual(statuses, want) || maxOpen != 2 || s.Open != 0 || len(s.Children) != 1 {
		t.Fatalf("control: statuses %v (want %v), at most %d open (want 2), %d open at the end, children %v", statuses, want, maxOpen, s.Open, s.Children)
	}
}

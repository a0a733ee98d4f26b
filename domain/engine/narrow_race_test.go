package engine_test

import (
	"testing"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestChildStartedFromAStaleParentIsNarrowed: a child that read its
// parent's snapshot before the parent was narrowed, and registered on it
// after the parent's children were narrowed (so that the propagation did
// not see it), is bounded by the parent as it is once it has started. The
// stale read is made explicit (the command carries the parent as it was).
func TestChildStartedFromAStaleParentIsNarrowed(t *testing.T) {
	f := newFixture(t)
	eng := f.eng
	start(t, eng, "p", domain.ModeAutoAcceptEdits)
	var stale *turn.Parent
	if err := eng.View(ctx, "p", func(s *turn.State) error {
		stale = &turn.Parent{TurnID: "p", Status: s.Status, Snapshot: s.Snapshot, WorkspaceID: s.WorkspaceID}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Execute(ctx, "p", &turn.ChangeProfile{Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}}); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Execute(ctx, "k", &turn.StartTurn{TurnID: "k", WorkspaceID: "ws", ThreadID: "th", ParentTurnID: "p", Parent: stale,
		Profile: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Turn.Snapshot.PermissionProfile.Mode; m != domain.ModeSupervised {
		t.Fatalf("the child started from the stale parent holds %s, want supervised", m)
	}
	// The control: a child of a parent that did not change keeps its mode.
	start(t, eng, "q", domain.ModeAutoAcceptEdits)
	res, err = eng.Execute(ctx, "k2", &turn.StartTurn{TurnID: "k2", WorkspaceID: "ws", ThreadID: "th", ParentTurnID: "q",
		Profile: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Turn.Snapshot.PermissionProfile.Mode; m != domain.ModeAutoAcceptEdits {
		t.Fatalf("the control child holds %s", m)
	}
}

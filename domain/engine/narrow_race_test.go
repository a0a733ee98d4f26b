package engine_test

import (
	"context"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
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

// TestNarrowingOutlivesItsCaller: the caller of a narrowing hangs up just
// after the parent's change is stored (its context is cancelled then);
// every child is narrowed all the same. Sending the same change again (a
// replay, nothing appended) also bounds a child that missed it.
func TestNarrowingOutlivesItsCaller(t *testing.T) {
	f := newFixture(t)
	cctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now,
		OnAppend: func(turnID string, evs []turn.Event, _ time.Duration) {
			if turnID == "p" && evs[0].Type == turn.TypeProfileChanged {
				cancel()
			}
		}})
	start(t, eng, "p", domain.ModeAutoAcceptEdits)
	for _, k := range []string{"k1", "k2", "k3"} {
		if _, err := eng.Execute(ctx, k, &turn.StartTurn{TurnID: k, WorkspaceID: "ws", ThreadID: "th", ParentTurnID: "p",
			Profile: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.Execute(cctx, "p", &turn.ChangeProfile{Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k1", "k2", "k3"} {
		if err := eng.View(ctx, k, func(s *turn.State) error {
			if m := s.Snapshot.PermissionProfile.Mode; m != domain.ModeSupervised {
				t.Errorf("%s holds %s after its parent's caller hung up, want supervised", k, m)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

package engine_test

import (
	"errors"
	"testing"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestNarrowOnlyChangesOnlyToNarrow: a ChangeProfile with NarrowOnly (the
// Claude Code hook's, with the profile a call's permission_mode selects)
// narrows a wider turn, leaves a turn that already lies within the profile
// as it is (even for a principal that may widen), and refuses one that
// would widen the turn as well as narrow it, changing nothing.
func TestNarrowOnlyChangesOnlyToNarrow(t *testing.T) {
	eng := newFixture(t).eng
	admin := turn.Meta{Actor: domain.Actor{Name: "root", Role: domain.RoleAdmin}}
	change := func(id string, p *domain.ProfileRequest) (domain.Mode, error) {
		t.Helper()
		res, err := eng.Execute(ctx, id, &turn.ChangeProfile{Meta: admin, Profile: p, NarrowOnly: true})
		var mode domain.Mode
		_ = eng.View(ctx, id, func(s *turn.State) error { mode = s.Snapshot.PermissionProfile.Mode; return nil })
		if err == nil && res.Replayed != (len(res.Events) == 0) {
			t.Fatalf("replayed %v with %d events", res.Replayed, len(res.Events))
		}
		return mode, err
	}
	start(t, eng, "wide", domain.ModeFullAccess)
	if m, err := change("wide", &domain.ProfileRequest{Mode: domain.ModeSupervised}); err != nil || m != domain.ModeSupervised {
		t.Fatalf("full_access narrowed to supervised: %s, %v", m, err)
	}
	if m, err := change("wide", &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}); err != nil || m != domain.ModeSupervised {
		t.Fatalf("supervised asked for auto_accept_edits: %s, %v (an admin's NarrowOnly must not widen)", m, err)
	}
	if _, err := eng.Execute(ctx, "mixed", &turn.StartTurn{TurnID: "mixed", WorkspaceID: "ws", ThreadID: "th", Inputs: turn.Inputs{WorkspaceRoot: "/work/repo"},
		Profile: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits, DeniedTools: []string{"read_file"}}}); err != nil {
		t.Fatal(err)
	}
	var conflict *turn.ConflictError
	if m, err := change("mixed", &domain.ProfileRequest{Mode: domain.ModeSupervised}); !errors.As(err, &conflict) || conflict.Code != "permissions_not_narrower" || m != domain.ModeAutoAcceptEdits {
		t.Fatalf("auto_accept_edits without read_file asked for supervised (narrower writes, read_file back): %s, %v", m, err)
	}
}

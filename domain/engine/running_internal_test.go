package engine

import (
	"context"
	"errors"
	"testing"

	"turnstile/domain"
)

func modeSnap(t *testing.T, m domain.Mode) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: m}, nil, domain.SourceComposer, domain.SnapshotInputs{Cwd: "/work/ws", WorkspaceRoot: "/work/ws"})
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestRunsNarrowingReachesALateStart: a narrowing change reported between
// a command's registration and the record of its snapshot (the window
// between deciding the start and running) still stops it, with the
// change's version as the cause; the controls: a command started at the
// change's version, and one under a snapshot the change widens, run on.
func TestRunsNarrowingReachesALateStart(t *testing.T) {
	var r runs
	full, auto := modeSnap(t, domain.ModeFullAccess), modeSnap(t, domain.ModeAutoAcceptEdits)
	late, lateRun, done1 := r.start(context.Background(), "t")
	defer done1()
	same, sameRun, done2 := r.start(context.Background(), "t")
	defer done2()
	if n := r.changed("t", auto, 7); n != 0 {
		t.Fatalf("stopped %d commands whose snapshot was not yet known", n)
	}
	r.started("t", lateRun, full, 4)
	r.started("t", sameRun, auto, 7)
	if cause := context.Cause(late); !errors.Is(cause, ErrPermissionsChanged) || cause.Error() != "permissions changed (version 7)" {
		t.Fatalf("the late start's cause: %v", cause)
	}
	if same.Err() != nil {
		t.Fatalf("a command started under the changed snapshot was stopped: %v", context.Cause(same))
	}
	// A widening change (auto_accept_edits → full_access) stops nothing.
	if n := r.changed("t", full, 9); n != 0 || same.Err() != nil {
		t.Fatalf("a widening change stopped %d commands", n)
	}
	// An older report (another instance's read model lagging) is ignored.
	if n := r.changed("t", modeSnap(t, domain.ModeSupervised), 8); n != 0 || same.Err() != nil {
		t.Fatalf("a stale report stopped %d commands", n)
	}
}

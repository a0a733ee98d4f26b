package turn

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack18ListsBoundedInBytes: each entry of a profile's tool and path
// lists and of a turn's roots was bounded at the edge (4096 bytes a path,
// 256 entries a list), which let a megabyte of allowed_paths into each
// turn. The server holds a turn's profile in its state, its snapshot, its
// recent turns and the summary of every ended turn: a runtime credential
// that started and completed 150 turns of a megabyte each took the heap
// from 9 to 859 MB (5.7 MB a turn; the open-turn quotas count open turns
// only), and a server killed for its memory lets a Claude Code http
// hook's calls run. The lists of one field now hold at most
// domain.MaxListBytes (64 KiB) in all: a start, a profile change and a
// task cap over it are refused (400), with nothing appended. Controls: the
// same starts, change and cap just within the bound are accepted.
func TestAttack18ListsBoundedInBytes(t *testing.T) {
	now := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	meta := Meta{Now: now, Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}}
	paths := func(total int) []string { // 256 paths of total bytes in all
		var out []string
		for i := range 256 {
			n := total / 256
			if i == 0 {
				n += total % 256
			}
			out = append(out, "/w/"+strings.Repeat("p", n-3))
		}
		return out
	}
	start := func(p *domain.ProfileRequest, in Inputs, c *domain.TaskCap) error {
		_, _, err := Decide(NewState("t1"), &StartTurn{Meta: meta, TurnID: "t1", WorkspaceID: "w", ThreadID: "th", Profile: p, Inputs: in, TaskCap: c})
		return err
	}
	refused := func(what string, err error, field string) {
		t.Helper()
		var fe *domain.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: %v, want a field error on %s", what, err, field)
		}
	}
	over, within := domain.MaxListBytes+1, domain.MaxListBytes
	refused("a start with allowed_paths over the bound",
		start(&domain.ProfileRequest{Mode: domain.ModeFullAccess, AllowedPaths: paths(over)}, Inputs{WorkspaceRoot: "/w"}, nil), "permission_profile")
	refused("a start with tool lists over the bound",
		start(&domain.ProfileRequest{Mode: domain.ModeFullAccess, AllowedTools: paths(over / 2), DeniedTools: paths(over - over/2)}, Inputs{WorkspaceRoot: "/w"}, nil), "permission_profile")
	refused("a start with roots over the bound",
		start(&domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs{WorkspaceRoot: "/w", ProjectRoots: paths(over / 2), AppReadRoots: paths(over - over/2)}, nil), "project_roots")
	if err := start(&domain.ProfileRequest{Mode: domain.ModeFullAccess, AllowedPaths: paths(within)}, Inputs{WorkspaceRoot: "/w"}, nil); err != nil {
		t.Errorf("control: a start with allowed_paths of %d bytes refused: %v", within, err)
	}
	if err := start(&domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs{WorkspaceRoot: "/w", ProjectRoots: paths(within)}, nil); err != nil {
		t.Errorf("control: a start with roots of %d bytes refused: %v", within, err)
	}

	s := NewState("t1")
	evs, _, err := Decide(s, &StartTurn{Meta: meta, TurnID: "t1", WorkspaceID: "w", ThreadID: "th",
		Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: Inputs{WorkspaceRoot: "/w"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		evs[i].Version = int64(i)
		Evolve(s, &evs[i])
	}
	change := func(n int) error {
		_, _, err := Decide(s, &ChangeProfile{Meta: meta, Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess, AllowedPaths: paths(n)}})
		return err
	}
	refused("a profile change with allowed_paths over the bound", change(over), "permission_profile")
	if err := change(within); err != nil {
		t.Errorf("control: a profile change with allowed_paths of %d bytes refused: %v", within, err)
	}

	// A task cap is bounded by its encoding (every list it holds).
	child := func(n int) error {
		c := &domain.TaskCap{Network: &domain.NetworkPolicy{Mode: domain.NetworkDisabled, DeniedDomains: []string{strings.Repeat("d", n)}}}
		_, _, err := Decide(NewState("c1"), &StartTurn{Meta: meta, TurnID: "c1", WorkspaceID: "w", ThreadID: "th", ParentTurnID: "t1",
			Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: Inputs{WorkspaceRoot: "/w"}, TaskCap: c})
		return err
	}
	refused("a child's task cap over the bound", child(domain.MaxListBytes), "task_cap")
	var fe *domain.FieldError
	if err := child(domain.MaxListBytes - 200); errors.As(err, &fe) && fe.Field == "task_cap" {
		t.Errorf("control: a task cap within the bound refused: %v", err) // (its parent, not given here, is what it lacks)
	}
}

// TestAttack18SnapshotBounded: every writable root adds the protected list
// to a turn's snapshot (40 to 80 KB in auto_accept_edits, as the root's path is short or long), and within the
// roots' bounds (256 of them, 64 KiB in all) a start made a snapshot event
// of 6.2 MB, held with the turn's state and among the server's recent
// turns: an agent that started and ended such turns took the server's
// memory. A snapshot now encodes to at most MaxSnapshotBytes (3 MiB), or
// the start is refused (400) with nothing appended. Control: a start with
// 40 writable roots is accepted.
func TestAttack18SnapshotBounded(t *testing.T) {
	meta := Meta{Now: time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC), Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}}
	start := func(n int) error {
		var roots []string
		for i := range n {
			roots = append(roots, fmt.Sprintf("/w/r%03d", i))
		}
		_, _, err := Decide(NewState("t1"), &StartTurn{Meta: meta, TurnID: "t1", WorkspaceID: "w", ThreadID: "th",
			Profile: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, Inputs: Inputs{WorkspaceRoot: "/w/r", ProjectRoots: roots}})
		return err
	}
	var fe *domain.FieldError
	if err := start(255); !errors.As(err, &fe) || fe.Field != "project_roots" {
		t.Errorf("a start with 255 writable project roots: %v, want a field error on project_roots", err)
	}
	if err := start(40); err != nil {
		t.Errorf("control: a start with 40 writable project roots refused: %v", err)
	}
}

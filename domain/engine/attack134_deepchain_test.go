package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// chain starts p and a chain of n turns under it: t1 (child of p), t2
// (child of t1), ... tn. Nothing bounds how deep the agent nests turns
// (each turn starts at most 256 children, but a chain has one each).
//
// (Fixed: turns nest at most 64 deep. chain returns the last i it could
// start, after checking that the next start was refused for its depth.)
func chain(t *testing.T, eng *engine.Engine, root string, n int) int {
	t.Helper()
	startIn(t, eng, "p", "", domain.ModeFullAccess, root)
	parent := "p"
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("t%d", i)
		_, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th", ParentTurnID: parent,
			Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root, Cwd: root}})
		var fe *domain.FieldError
		if errors.As(err, &fe) && fe.Field == "parent_turn_id" {
			t.Logf("the start of %s, %d turns below p, was refused: %v", id, i, err)
			return i - 1
		}
		if err != nil {
			t.Fatal(err)
		}
		parent = id
	}
	return n
}

// TestAttack134_DeepChainOutrunsEndedAncestor: the hundred-and-thirty-third
// review's fix (Engine.EndedAncestor) refuses a turn whose ancestor has
// ended, but looks at most 64 turns up, and nothing bounds how deep the
// agent (runtime credential) nests its turns. The agent starts p's chain
// p > t1 > ... > t66. A person interrupts p; while the propagation is on
// its way (t1's end held: its egress Drain, a stand-in hook, no timer), or
// after a crash cut it short, t65 (65 turns below p) looks at t64..t1,
// all live, never at p: its tool calls are allowed and its commands run.
// Control: t64, whose walk reaches p, asked at the same moment, is refused.
func TestAttack134_DeepChainOutrunsEndedAncestor(t *testing.T) {
	_, eng, r, root := execFixture(t)
	if deepest := chain(t, eng, root, 66); deepest < 65 {
		return // fixed: there is no t65 (TestAttack134_DeepChainControl checks the deepest)
	}
	draining, release := make(chan struct{}), make(chan struct{})
	eng.SetBeforeEnd(func(_ context.Context, id string) {
		if id == "t1" {
			close(draining)
			<-release
		}
	})
	ended := make(chan error, 1)
	go func() {
		_, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}}, Status: turn.StatusInterrupted, Reason: "stop now"})
		ended <- err
	}()
	<-draining // p has ended; t1's end (and so everything below) is on its way
	b, derr := decideLs(eng, "t65", "after")
	res, xerr := eng.Exec(ctx, "t65", &engine.Command{ToolCallID: "run", Argv: []string{"/bin/echo", "late"}}, 0)
	// Control, at the same moment: t64's walk reaches p (asked after t65:
	// its refusal ends t64 and everything under it).
	_, cerr := decideLs(eng, "t64", "after")
	close(release)
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	if !errors.Is(cerr, turn.ErrIllegalTransition) {
		t.Fatalf("control: t64's decision after p was interrupted: %v", cerr)
	}
	if derr == nil && b == domain.BehaviorAllow {
		t.Errorf("p was interrupted; t65, 65 turns below it, still had a tool call allowed (EndedAncestor stops 64 turns up)")
	}
	if xerr == nil && res.Ran {
		t.Errorf("p was interrupted; t65, 65 turns below it, still ran a command: %v", r.runs())
	}
}

// TestAttack134_DeepChainAfterCrash: the crash form (p's end recorded, the
// propagation reached nobody): t65 decides allow and runs; the control
// t64 is refused.
func TestAttack134_DeepChainAfterCrash(t *testing.T) {
	f, eng, r, root := execFixture(t)
	if deepest := chain(t, eng, root, 66); deepest < 65 {
		return // fixed: there is no t65 (TestAttack134_DeepChainControl checks the deepest)
	}
	endStraight(t, f, "p")
	b, derr := decideLs(eng, "t65", "after")
	res, xerr := eng.Exec(ctx, "t65", &engine.Command{ToolCallID: "run", Argv: []string{"/bin/echo", "late"}}, 0)
	if _, cerr := decideLs(eng, "t64", "after"); !errors.Is(cerr, turn.ErrIllegalTransition) {
		t.Fatalf("control: t64's decision after p ended: %v", cerr)
	}
	if derr == nil && b == domain.BehaviorAllow {
		t.Errorf("p ended; t65, 65 turns below it, still had a tool call allowed")
	}
	if xerr == nil && res.Ran {
		t.Errorf("p ended; t65, 65 turns below it, still ran a command: %v", r.runs())
	}
}

// TestAttack134_DeepChainControl: the same chain and end; t64, whose walk
// reaches p, neither decides nor runs.
func TestAttack134_DeepChainControl(t *testing.T) {
	f, eng, r, root := execFixture(t)
	deepest := fmt.Sprintf("t%d", chain(t, eng, root, 66)) // the deepest turn there can be (t63)
	endStraight(t, f, "p")
	if b, err := decideLs(eng, deepest, "after"); !errors.Is(err, turn.ErrIllegalTransition) || b == domain.BehaviorAllow {
		t.Fatalf("%s's decision after p ended: %v %v", deepest, b, err)
	}
	if res, err := eng.Exec(ctx, deepest, &engine.Command{ToolCallID: "run", Argv: []string{"/bin/echo", "late"}}, 0); err == nil && res.Ran {
		t.Fatalf("%s ran a command after p ended: %v", deepest, r.runs())
	}
	if len(r.runs()) != 0 {
		t.Fatalf("something ran: %v", r.runs())
	}
}

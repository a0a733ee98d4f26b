package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// endStraight appends id's end to its stream without the engine, as a
// crash between a turn's end and its propagation (or an end the
// propagation has not reached) leaves it: TestChildOfEndedParentEndsOnExec.
func endStraight(t *testing.T, f *fixture, id string) {
	t.Helper()
	s, _ := replay(t, f, id)
	evs, _, err := turn.Decide(s, &turn.EndTurn{Meta: turn.Meta{Now: f.clock.Now()}, Status: turn.StatusInterrupted, Reason: "stop"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := turn.Encode(evs, s.LastHash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Append(ctx, turn.StreamName(id), eventstore.Exactly(uint64(s.Version)), data); err != nil {
		t.Fatal(err)
	}
}

func decideLs(eng *engine.Engine, id, call string) (domain.Behavior, error) {
	args, _ := json.Marshal(map[string]any{"cmd": []string{"ls"}})
	res, err := eng.Execute(ctx, id, &turn.EvaluateTool{Meta: turn.Meta{Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}},
		ToolCallID: call, Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
	if err != nil {
		return 0, err
	}
	return res.Decision.Behavior, nil
}

// TestAttack133_GrandchildOfEndedTurnDecides: the hundred-and-thirty-first
// review's fix refuses a child's decision, answer and exec once its
// PARENT has ended (refuseParentEnded, prepareExec), but looks one level
// up only. A person interrupts the root turn p; its end is recorded, and
// the propagation has not reached p's child c (a crash between the two,
// an end on another instance whose propagation was cut short, or simply
// the children before c still draining). c's own child g looks at c,
// which is live, and is allowed everything: its decisions are allowed and
// its commands run, though the turn the person interrupted is above it.
// The agent that holds the runtime credential need only act in g, never
// in c (whose next request would end c and g with it).
// Wanted: a turn whose ancestor has ended decides and runs nothing.
// Control (TestAttack133_GrandchildOfEndedTurnDecidesControl): the direct
// child c, in the same state, is refused.
func TestAttack133_GrandchildOfEndedTurnDecides(t *testing.T) {
	f, eng, r, root := execFixture(t)
	startIn(t, eng, "p", "", domain.ModeFullAccess, root)
	startIn(t, eng, "c", "p", domain.ModeFullAccess, root)
	startIn(t, eng, "g", "c", domain.ModeFullAccess, root)
	// Before the interrupt, g decides and runs (the honest form).
	if b, err := decideLs(eng, "g", "before"); err != nil || b != domain.BehaviorAllow {
		t.Fatalf("setup: g's decision before the interrupt: %v %v", b, err)
	}
	endStraight(t, f, "p")
	b, err := decideLs(eng, "g", "after")
	if err == nil && b == domain.BehaviorAllow {
		t.Errorf("the root turn p was interrupted; its grandchild g still had a tool call allowed (its parent c is live, nothing looks further up)")
	}
	res, err := eng.Exec(ctx, "g", &engine.Command{ToolCallID: "run", Argv: []string{"/bin/echo", "late"}}, 0)
	if err == nil && res.Ran {
		t.Errorf("the root turn p was interrupted; its grandchild g still ran a command: %v", r.runs())
	}
	var gs turn.Status
	if err := eng.View(ctx, "g", func(s *turn.State) error { gs = s.Status; return nil }); err != nil {
		t.Fatal(err)
	}
	if !gs.Terminal() {
		t.Errorf("g is %s after its grandparent was interrupted and g asked twice", gs)
	}
}

// TestAttack133_GrandchildOfEndedTurnDecidesControl: the same interrupt,
// asked of the direct child c: refused (an illegal transition), c ended,
// nothing run.
func TestAttack133_GrandchildOfEndedTurnDecidesControl(t *testing.T) {
	f, eng, r, root := execFixture(t)
	startIn(t, eng, "p", "", domain.ModeFullAccess, root)
	startIn(t, eng, "c", "p", domain.ModeFullAccess, root)
	startIn(t, eng, "g", "c", domain.ModeFullAccess, root)
	if b, err := decideLs(eng, "c", "before"); err != nil || b != domain.BehaviorAllow {
		t.Fatalf("c's decision before the interrupt: %v %v", b, err)
	}
	endStraight(t, f, "p")
	if _, err := decideLs(eng, "c", "after"); !errors.Is(err, turn.ErrIllegalTransition) {
		t.Fatalf("c's decision after its parent was interrupted: %v", err)
	}
	if _, err := eng.Exec(ctx, "c", &engine.Command{ToolCallID: "run", Argv: []string{"/bin/echo", "late"}}, 0); !errors.Is(err, turn.ErrIllegalTransition) || len(r.runs()) != 0 {
		t.Fatalf("c's exec after its parent was interrupted: %v %v", err, r.runs())
	}
}

// TestAttack133_GrandchildDuringPropagation: the live form, with no crash.
// Interrupting p ends its children one after another, each end running
// what is kept for it elsewhere first (SetBeforeEnd: the egress proxy's
// Drain, which waits up to 2 s for its connections' handlers and records
// the traffic). While the first child c1's end runs, p has ended and the
// second child c2 is refused (the hundred-and-thirty-first review's fix),
// but c2's own child g, whose parent c2 the propagation has not reached,
// decides and runs as before. The hook here holds c1's end until g has
// been asked (a stand-in for a drain that takes its time, not a timer).
// Control: c2, asked at the same moment, is refused.
func TestAttack133_GrandchildDuringPropagation(t *testing.T) {
	_, eng, r, root := execFixture(t)
	startIn(t, eng, "p", "", domain.ModeFullAccess, root)
	startIn(t, eng, "c1", "p", domain.ModeFullAccess, root)
	startIn(t, eng, "c2", "p", domain.ModeFullAccess, root)
	startIn(t, eng, "g", "c2", domain.ModeFullAccess, root)
	draining, release := make(chan struct{}), make(chan struct{})
	eng.SetBeforeEnd(func(_ context.Context, id string) {
		if id == "c1" {
			close(draining)
			<-release
		}
	})
	ended := make(chan error, 1)
	go func() {
		_, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}}, Status: turn.StatusInterrupted, Reason: "stop now"})
		ended <- err
	}()
	<-draining // p has ended; c1's end is running
	gb, gerr := decideLs(eng, "g", "g-after")
	gres, gxerr := eng.Exec(ctx, "g", &engine.Command{ToolCallID: "g-run", Argv: []string{"/bin/echo", "late"}}, 0)
	// Control: the direct child c2, at the same moment.
	_, cerr := decideLs(eng, "c2", "c2-after")
	close(release)
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	if !errors.Is(cerr, turn.ErrIllegalTransition) {
		t.Fatalf("control: c2's decision while p's end propagated: %v", cerr)
	}
	if gerr == nil && gb == domain.BehaviorAllow {
		t.Errorf("p was interrupted; while its first child's end ran, its grandchild g had a tool call allowed")
	}
	if gxerr == nil && gres.Ran {
		t.Errorf("p was interrupted; while its first child's end ran, its grandchild g ran a command: %v", r.runs())
	}
}

// TestAttack133_NewGrandchildUnderEndedTurn: after the root p has ended
// (its end recorded, the propagation not reached c), the agent starts a
// new turn under c: its start looks at c only (live), so it starts live
// and decides and runs, though the turn the person interrupted is above
// it; the agent can start as many as c's child cap allows, never acting in
// c itself. Control: a new turn started directly under p is ended at once
// (the start's after-check) and decides nothing.
func TestAttack133_NewGrandchildUnderEndedTurn(t *testing.T) {
	f, eng, r, root := execFixture(t)
	startIn(t, eng, "p", "", domain.ModeFullAccess, root)
	startIn(t, eng, "c", "p", domain.ModeFullAccess, root)
	endStraight(t, f, "p")
	// Control: a new child of p itself.
	if _, err := eng.Execute(ctx, "k", &turn.StartTurn{TurnID: "k", WorkspaceID: "ws", ThreadID: "th", ParentTurnID: "p",
		Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root, Cwd: root}}); err != nil && !errors.Is(err, turn.ErrIllegalTransition) {
		t.Fatalf("control: start under the ended p: %v", err)
	}
	if b, err := decideLs(eng, "k", "x"); err == nil && b == domain.BehaviorAllow {
		t.Fatalf("control: a new child of the ended p decided allow")
	}
	// The attack: a new child of c.
	if _, err := eng.Execute(ctx, "g2", &turn.StartTurn{TurnID: "g2", WorkspaceID: "ws", ThreadID: "th", ParentTurnID: "c",
		Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root, Cwd: root}}); err != nil {
		t.Logf("start under c refused: %v", err)
		return
	}
	if b, err := decideLs(eng, "g2", "x"); err == nil && b == domain.BehaviorAllow {
		t.Errorf("a turn started under c after the root p was interrupted decided allow")
	}
	if res, err := eng.Exec(ctx, "g2", &engine.Command{ToolCallID: "run", Argv: []string{"/bin/echo", "late"}}, 0); err == nil && res.Ran {
		t.Errorf("a turn started under c after the root p was interrupted ran a command: %v", r.runs())
	}
}

// TestAttack133_LaterChildCommandOutlivesInterrupt: the
// hundred-and-thirty-first review's fix refuses what a child of an ended
// turn is asked, but a command the child was already running is stopped
// only when the propagation reaches the child (StopRuns at its own end).
// p is interrupted while its second child c2 runs a command; the first
// child c1's end is held (its Drain: a stalled request body holds it 2 s,
// per child, TestAttack133_StalledBodyKeepsGrandchildLive; the hook here
// stands in for it, no timer). p has ended, and c2's command runs on and
// completes, unkilled, with what the agent wrote to it after the person's
// interrupt. Control: the same command with c1's end not held is killed
// by the interrupt.
func TestAttack133_LaterChildCommandOutlivesInterrupt(t *testing.T) {
	for _, held := range []bool{false, true} {
		name := "c1's end held"
		if !held {
			name = "control: nothing held"
		}
		t.Run(name, func(t *testing.T) {
			_, eng, _, root := execFixture(t)
			startIn(t, eng, "p", "", domain.ModeFullAccess, root)
			startIn(t, eng, "c1", "p", domain.ModeFullAccess, root)
			startIn(t, eng, "c2", "p", domain.ModeFullAccess, root)
			fifo := filepath.Join(root, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			started := filepath.Join(root, "started")
			draining, release := make(chan struct{}), make(chan struct{})
			eng.SetBeforeEnd(func(_ context.Context, id string) {
				if id == "c1" && held {
					close(draining)
					<-release
				}
			})
			type out struct {
				res engine.ExecResult
				err error
			}
			ran := make(chan out, 1)
			go func() {
				res, err := eng.Exec(ctx, "c2", &engine.Command{ToolCallID: "long", Argv: []string{"/bin/sh", "-c", "touch " + started + "; exec cat " + fifo}}, 0)
				ran <- out{res, err}
			}()
			for i := 0; ; i++ {
				if _, err := os.Stat(started); err == nil {
					break
				}
				if i > 20000 {
					t.Fatal("setup: the command never started")
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			ended := make(chan error, 1)
			go func() {
				_, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}}, Status: turn.StatusInterrupted, Reason: "stop now"})
				ended <- err
			}()
			if held {
				<-draining // p has ended; c1's end is running
				// The agent feeds its running command after the interrupt.
				// (cat may not have opened it yet: poll for its reader.)
				var w *os.File
				for i := 0; ; i++ {
					var err error
					if w, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						break
					}
					select {
					case o := <-ran:
						// Fixed: the children end all at once, and c2's
						// command was stopped while c1's end was held,
						// before anything was sent to it.
						close(release)
						if err := <-ended; err != nil {
							t.Fatal(err)
						}
						if o.err == nil && o.res.Output != nil && strings.Contains(o.res.Output.Stdout, "after-the-interrupt") {
							t.Fatalf("c2's command read what was sent after the interrupt: %q", o.res.Output.Stdout)
						}
						return
					default:
					}
					if i > 20000 {
						close(release)
						t.Fatalf("setup: no reader on the fifo: %v", err)
					}
					time.Sleep(time.Millisecond) // polling a state, not standing in for it
				}
				w.Write([]byte("after-the-interrupt\n"))
				w.Close()
				o := <-ran
				close(release)
				if err := <-ended; err != nil {
					t.Fatal(err)
				}
				if o.err == nil && o.res.Ran && o.res.Output != nil && o.res.Output.ExitCode == 0 && strings.Contains(o.res.Output.Stdout, "after-the-interrupt") {
					t.Errorf("p was interrupted; its child c2's running command went on and completed with what was sent after the interrupt: %q (%s)", o.res.Output.Stdout, o.res.Message)
				}
				return
			}
			if err := <-ended; err != nil {
				t.Fatal(err)
			}
			o := <-ran
			if o.err != nil || !o.res.Ran || o.res.Output == nil || o.res.Output.ExitCode == 0 {
				t.Fatalf("control: c2's command after p's interrupt: %+v %v", o.res, o.err)
			}
			t.Logf("control: %s", o.res.Message)
		})
	}
}

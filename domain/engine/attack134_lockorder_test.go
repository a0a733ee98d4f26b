package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// gateStore signals the first read of a stream armed in it, and (if hold
// is set for it) waits for its release before reading.
type gateStore struct {
	eventstore.Store
	mu    sync.Mutex
	gates map[string]*gate
}

type gate struct {
	reached chan struct{}
	release chan struct{} // nil: do not wait
}

func (g *gateStore) arm(stream string, hold bool) *gate {
	g.mu.Lock()
	defer g.mu.Unlock()
	gt := &gate{reached: make(chan struct{})}
	if hold {
		gt.release = make(chan struct{})
	}
	g.gates[stream] = gt
	return gt
}

func (g *gateStore) ReadStream(ctx context.Context, stream string, from uint64, max int) ([]eventstore.RecordedEvent, error) {
	g.mu.Lock()
	gt := g.gates[stream]
	delete(g.gates, stream)
	g.mu.Unlock()
	if gt != nil {
		close(gt.reached)
		if gt.release != nil {
			<-gt.release
		}
	}
	return g.Store.ReadStream(ctx, stream, from, max)
}

// TestAttack134_LockOrderDeadlockHoldsInterrupt: EndedAncestor (the
// hundred-and-thirty-third review) views every ancestor of a turn while
// holding that turn's own lock (refuseParentEnded runs in load, under the
// lock): locks are taken child first, ancestor after. A start of a turn
// id that is taken (a retry) views the NEW parent it names while holding
// the taken turn's lock (load: ChildCapRefusal). The agent (runtime
// credential) sends, at once: (1) a start of its root turn p's id again,
// naming p's grandchild g as the parent (p locked, then g wanted), and
// (2) a decision in g (g locked, then its ancestors c and p wanted). Each
// holds the lock the other waits for; turn locks wait on the request's
// context only, and the API gives a decision or a start no deadline (the
// agent's client never hangs up). Then a person interrupts p: the end
// waits for p's lock behind the deadlock, and never happens. The store
// gate below only orders the two requests into the window (the race an
// agent wins by repeating them); it blocks nothing once released.
// Control (TestAttack134_LockOrderDeadlockHoldsInterruptControl): the same
// two requests with the start naming no parent: the interrupt happens.
func TestAttack134_LockOrderDeadlockHoldsInterrupt(t *testing.T) {
	lockOrder(t, "g")
}

func TestAttack134_LockOrderDeadlockHoldsInterruptControl(t *testing.T) {
	lockOrder(t, "")
}

func lockOrder(t *testing.T, newParent string) {
	f, _, r, root := execFixture(t)
	gs := &gateStore{Store: f.store, gates: map[string]*gate{}}
	setup := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Runner: r, Hint: projHint{f.proj}})
	startIn(t, setup, "p", "", domain.ModeFullAccess, root)
	startIn(t, setup, "c", "p", domain.ModeFullAccess, root)
	startIn(t, setup, "g", "c", domain.ModeFullAccess, root)
	// The serving engine, its cache cold (a restart, or an eviction).
	eng := engine.New(gs, engine.Config{Kernel: kernel, Now: f.clock.Now, Runner: r, Hint: projHint{f.proj}})
	pGate := gs.arm(turn.StreamName("p"), true)
	cGate := gs.arm(turn.StreamName("c"), false)

	agentCtx, agentGone := context.WithCancel(ctx) // the agent's requests: it never hangs up
	defer agentGone()
	startDone, decideDone := make(chan error, 1), make(chan error, 1)
	go func() { // (1) p's start again, naming newParent
		_, err := eng.Execute(agentCtx, "p", &turn.StartTurn{TurnID: "p", WorkspaceID: "ws", ThreadID: "th", ParentTurnID: newParent,
			Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root, Cwd: root}})
		startDone <- err
	}()
	<-pGate.reached // (1) holds p's lock (catching p up)
	go func() {     // (2) a decision in g
		args := []byte(`{"cmd":["ls"]}`)
		_, err := eng.Execute(agentCtx, "g", &turn.EvaluateTool{Meta: turn.Meta{Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}},
			ToolCallID: "x", Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
		decideDone <- err
	}()
	<-cGate.reached // (2) holds g's lock, viewing its ancestors (c now, p next)
	close(pGate.release)

	// A person interrupts p.
	ended := make(chan error, 1)
	go func() {
		_, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}}, Status: turn.StatusInterrupted, Reason: "stop now"})
		ended <- err
	}()
	// A hang detector only (the end takes milliseconds when nothing holds
	// it): the deadlock above is permanent while the agent stays connected.
	hang := time.NewTimer(20 * time.Second)
	defer hang.Stop()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the interrupt of p: %v", err)
		}
	case <-hang.C:
		t.Errorf("a person's interrupt of p never happened: the agent's start of p naming g as its parent (holding p, wanting g) and its decision in g (holding g, wanting p) deadlock, and p's end waits behind them")
		agentGone()
		<-ended
	}
	agentGone()
	<-startDone
	<-decideDone
	var st turn.Status
	if err := eng.View(ctx, "p", func(s *turn.State) error { st = s.Status; return nil }); err != nil {
		t.Fatal(err)
	}
	t.Logf("p is %s", st)
}

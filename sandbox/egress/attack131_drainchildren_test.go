package egress

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack131_DrainStallKeepsChildrenLive: ending a turn ends its
// children one after another (Engine.endChildren), each end running
// Proxy.Drain first. A plain request the agent leaves unread in a child
// holds that child's drain for its full 2 s (TestAttack131_DrainStall...),
// and the children after it are still live all that time: a person who
// interrupts the parent has the parent ended, yet its other child still
// has its decisions allowed and its egress proxy carrying, for 2 s per
// stalled child before it (a turn may start 256 children, and each child
// its own: minutes), and the person's interrupt does not answer until
// then. Wanted: the children of an ended turn allowed nothing once it has
// ended (ended, or their decisions refused, before any child's drain
// waits), and the drain bounded as a whole, not per child.
// Control: before the interrupt the child's decision and tunnel are
// allowed; once the interrupt has answered, both are refused.
func TestAttack131_DrainStallKeepsChildrenLive(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	ctx := context.Background()
	root := t.TempDir()
	for _, id := range []string{"p", "c1", "c2"} {
		parent := ""
		if id != "p" {
			parent = "p"
		}
		if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th", ParentTurnID: parent,
			Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
			t.Fatal(err)
		}
	}
	j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}}
	p := NewProxy(j, &mapResolver{})
	eng.SetBeforeEnd(p.Drain) // as serve wires them
	p.Recheck = 5 * time.Millisecond
	echo := echoServer(t)
	addr := startProxy(t, p)
	args, _ := json.Marshal(map[string]any{"cmd": []string{"ls"}})
	n := 0
	decideIn := func(id string) (string, error) {
		n++
		res, err := eng.Execute(ctx, id, &turn.EvaluateTool{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}},
			ToolCallID: "call-" + strings.Repeat("x", n), Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
		if err != nil {
			return "", err
		}
		return res.Decision.Behavior.String(), nil
	}
	tunnel := func(id string) string {
		c, _, st := dialConnect(t, addr, id, p.Credential(id), echo)
		c.Close()
		return st
	}

	// Control, before the interrupt: the child decides and tunnels.
	if d, err := decideIn("c2"); err != nil || d != "allow" {
		t.Fatalf("control: c2's decision before the interrupt: %q %v", d, err)
	}
	if st := tunnel("c2"); !strings.HasPrefix(st, "200") {
		t.Fatalf("control: c2's tunnel before the interrupt: %s", st)
	}

	big, upClosed := stallingOrigin(t)
	stalled := stallPlainRequest(t, addr, "c1", p.Credential("c1"), big)
	interrupted := make(chan error, 1)
	go func() {
		_, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}},
			Status: turn.StatusInterrupted, Reason: "stop now"})
		interrupted <- err
	}()
	<-upClosed // c1's drain has begun: the parent's end is appended, c1's children's ends wait on it
	var parent turn.Status
	if err := eng.View(ctx, "p", func(s *turn.State) error { parent = s.Status; return nil }); err != nil {
		t.Fatal(err)
	}
	if !parent.Terminal() {
		t.Fatalf("setup: the parent is %s while its child's drain runs", parent)
	}
	d, derr := decideIn("c2")
	st2 := tunnel("c2")
	if err := <-interrupted; err != nil {
		t.Fatal(err)
	}
	stalled.Close()
	if derr == nil && d == "allow" {
		t.Errorf("the parent was interrupted (%s) and its child c2 still had a command allowed", parent)
	}
	if strings.HasPrefix(st2, "200") {
		t.Errorf("the parent was interrupted (%s) and its child c2's egress proxy still opened a tunnel: %s", parent, st2)
	}

	// Control, after the interrupt answered: both refused.
	if d, err := decideIn("c2"); err == nil && d == "allow" {
		t.Fatalf("control: c2's decision after the interrupt answered was allowed")
	}
	if st := tunnel("c2"); strings.HasPrefix(st, "200") {
		t.Fatalf("control: c2's tunnel after the interrupt answered: %s", st)
	}
}

// TestAttack131_DrainStallKeepsChildrenLiveControl: the same parent and
// children without a stalled request: the interrupt answers with every
// child ended, and the child's decision and tunnel, allowed before, are
// refused after.
func TestAttack131_DrainStallKeepsChildrenLiveControl(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	ctx := context.Background()
	root := t.TempDir()
	for _, id := range []string{"p", "c1", "c2"} {
		parent := ""
		if id != "p" {
			parent = "p"
		}
		if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th", ParentTurnID: parent,
			Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
			t.Fatal(err)
		}
	}
	j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}}
	p := NewProxy(j, &mapResolver{})
	eng.SetBeforeEnd(p.Drain)
	p.Recheck = 5 * time.Millisecond
	echo := echoServer(t)
	addr := startProxy(t, p)
	args, _ := json.Marshal(map[string]any{"cmd": []string{"ls"}})
	decide := func(call string) (string, error) {
		res, err := eng.Execute(ctx, "c2", &turn.EvaluateTool{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}},
			ToolCallID: call, Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
		if err != nil {
			return "", err
		}
		return res.Decision.Behavior.String(), nil
	}
	if d, err := decide("a"); err != nil || d != "allow" {
		t.Fatalf("before the interrupt: %q %v", d, err)
	}
	if c, _, st := dialConnect(t, addr, "c2", p.Credential("c2"), echo); !strings.HasPrefix(st, "200") {
		t.Fatalf("tunnel before the interrupt: %s", st)
	} else {
		c.Close()
	}
	if _, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}},
		Status: turn.StatusInterrupted, Reason: "stop now"}); err != nil {
		t.Fatal(err)
	}
	if d, err := decide("b"); err == nil && d == "allow" {
		t.Fatalf("after the interrupt: c2's decision allowed")
	}
	if c, _, st := dialConnect(t, addr, "c2", p.Credential("c2"), echo); strings.HasPrefix(st, "200") {
		c.Close()
		t.Fatalf("after the interrupt: c2's tunnel: %s", st)
	}
}

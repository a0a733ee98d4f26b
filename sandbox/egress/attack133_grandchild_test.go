package egress

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack133_GrandchildTunnelsAfterRootEnded: the egress judge refuses
// a child whose parent has ended (the hundred-and-thirty-first review),
// one level up only. p is interrupted; while its first child c1's end
// runs (its Drain), the second child c2 is refused, but c2's child g,
// whose parent the propagation has not reached, opens a tunnel through
// the egress proxy. The hook holds c1's drain until g has dialled (a
// stand-in for a drain that takes its time, not a timer).
// Control, at the same moment: c2's tunnel is refused; and before the
// interrupt g's tunnel opens.
func TestAttack133_GrandchildTunnelsAfterRootEnded(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	ctx := context.Background()
	root := t.TempDir()
	for _, tc := range [][2]string{{"p", ""}, {"c1", "p"}, {"c2", "p"}, {"g", "c2"}} {
		if _, err := eng.Execute(ctx, tc[0], &turn.StartTurn{TurnID: tc[0], WorkspaceID: "ws", ThreadID: "th", ParentTurnID: tc[1],
			Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
			t.Fatal(err)
		}
	}
	j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}}
	p := NewProxy(j, &mapResolver{})
	draining, release := make(chan struct{}), make(chan struct{})
	eng.SetBeforeEnd(func(ctx context.Context, id string) {
		if id == "c1" {
			close(draining)
			<-release
		}
		p.Drain(ctx, id)
	})
	echo := echoServer(t)
	addr := startProxy(t, p)
	tunnel := func(id string) string {
		c, _, st := dialConnect(t, addr, id, p.Credential(id), echo)
		c.Close()
		return st
	}
	if st := tunnel("g"); !strings.HasPrefix(st, "200") {
		t.Fatalf("control: g's tunnel before the interrupt: %s", st)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}},
			Status: turn.StatusInterrupted, Reason: "stop now"})
		ended <- err
	}()
	<-draining
	stG := tunnel("g")
	stC := tunnel("c2")
	close(release)
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(stC, "200") {
		t.Fatalf("control: c2's tunnel once p had ended: %s", stC)
	}
	if strings.HasPrefix(stG, "200") {
		t.Errorf("p was interrupted; its grandchild g's egress proxy still opened a tunnel: %s", stG)
	}
}

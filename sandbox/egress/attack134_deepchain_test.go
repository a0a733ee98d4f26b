package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack134_DeepChainEgressOutlivesAncestor: the judge refuses a turn's
// connections once a turn above it has ended (Engine.EndedAncestor, the
// hundred-and-thirty-third review), looking at most 64 turns up; nothing
// bounds how deep the agent nests turns. p > t1 > ... > t66; a person
// interrupts p; while the end is on its way (t1's end held: a stand-in for
// its Drain, no timer), a command of t65 (65 turns below p) reaches an
// allowed origin through its proxy (200). Control: t64's, at the same
// moment, is refused (403).
func TestAttack134_DeepChainEgressOutlivesAncestor(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	root := t.TempDir()
	parent := ""
	for i := 0; i <= 66; i++ {
		id := "p"
		if i > 0 {
			id = fmt.Sprintf("t%d", i)
		}
		if _, err := eng.Execute(context.Background(), id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th", ParentTurnID: parent,
			Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
			// Fixed: turns nest at most 64 deep, so EndedAncestor
			// reaches the root from every turn.
			if fe := (*domain.FieldError)(nil); errors.As(err, &fe) && fe.Field == "parent_turn_id" && i == 64 {
				t.Logf("the start of %s was refused: %v", id, err)
				return
			}
			t.Fatal(err)
		}
		parent = id
	}
	j := &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}
	p := NewProxy(j, &mapResolver{})
	_, ok := origin(t, "ok")
	serveTurn := func(id string) string {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := p.Server(p.TurnHandler(id), 10*time.Second)
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String()
	}
	u65, u64 := serveTurn("t65"), serveTurn("t64")
	fetch := func(proxyURL string) int {
		resp, err := proxyClient(proxyURL).Get("http://" + ok + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := fetch(u65); c != http.StatusOK {
		t.Fatalf("setup: t65's request before the interrupt: %d", c)
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
		_, err := eng.Execute(context.Background(), "p", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}}, Status: turn.StatusInterrupted, Reason: "stop now"})
		ended <- err
	}()
	<-draining
	c65 := fetch(u65)
	c64 := fetch(u64) // control
	close(release)
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	if c64 != http.StatusForbidden {
		t.Fatalf("control: t64's request after p was interrupted: %d", c64)
	}
	if c65 == http.StatusOK {
		t.Errorf("p was interrupted; t65 (65 turns below it) still reached an allowed origin through its proxy (%d)", c65)
	}
}

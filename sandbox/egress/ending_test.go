package egress

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestDrainAdmitsNothingMore: once Drain began ending a turn, a connection
// of that turn decided meanwhile is not admitted (it would open after Drain
// listed the turn's connections and carry bytes no summary records); the
// control, another live turn's tunnel through the same proxy, opens.
func TestDrainAdmitsNothingMore(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	for _, id := range []string{"a", "b"} {
		if _, err := eng.Execute(context.Background(), id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
			Inputs: turn.Inputs{WorkspaceRoot: t.TempDir()}}); err != nil {
			t.Fatal(err)
		}
	}
	j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}}
	p := NewProxy(j, &mapResolver{})
	echo := echoServer(t)
	addr := startProxy(t, p)
	p.Drain(context.Background(), "a") // the end of a begins (the turn itself is still live)
	c, _, st2 := dialConnect(t, addr, "a", p.Credential("a"), echo)
	c.Close()
	if strings.HasPrefix(st2, "200") {
		t.Fatalf("a tunnel of a turn whose end began was admitted: %s", st2)
	}
	c, _, st3 := dialConnect(t, addr, "b", p.Credential("b"), echo)
	c.Close()
	if !strings.HasPrefix(st3, "200") {
		t.Fatalf("control: another turn's tunnel: %s", st3)
	}
}

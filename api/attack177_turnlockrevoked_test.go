package api_test

import (
	"context"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// appendGate holds the appends to one stream at gate while on.
type appendGate struct {
	eventstore.Store
	stream   string
	on       atomic.Bool
	inFlight atomic.Int64
	gate     chan struct{}
}

func (g *appendGate) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (eventstore.AppendResult, error) {
	if stream == g.stream && g.on.Load() {
		g.inFlight.Add(1)
		defer g.inFlight.Add(-1)
		select {
		case <-g.gate:
		case <-ctx.Done():
			return eventstore.AppendResult{}, ctx.Err()
		}
	}
	return g.Store.Append(ctx, stream, expected, events)
}

// TestAttack177_TurnLockWaitOutlivesRevocation: the hundred-and-seventy-
// seventh review, against review 170's fix, for the wait every command
// makes: a decision waits for its turn's lock (held by another command of
// the turn while it appends) and is then decided and recorded, with
// nothing authenticating its credential again. The agent's decision that
// waited behind its own first one is decided, recorded (an allow the
// runtime acts on) and answered 200, after its credential was revoked
// meanwhile.
//
// Controls: the decision that held the lock when the credential was
// revoked is answered (it was under way); another principal's decision
// that waited behind it in the same turn is answered 200.
func TestAttack177_TurnLockWaitOutlivesRevocation(t *testing.T) {
	ctx := context.Background()
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &appendGate{Store: bolt, stream: turn.StreamName("t"), gate: make(chan struct{})}
	eng, _, _, admin := serveStoreInProcess(t, st, bolt)
	agent := &inProcess{t: t, url: admin.url, token: admin.credential("agent", "runtime", "ws")}
	keeper := &inProcess{t: t, url: admin.url, token: admin.credential("keeper", "runtime", "ws")}
	root := t.TempDir()
	if _, err := eng.Execute(ctx, "t", &turn.StartTurn{TurnID: "t", WorkspaceID: "ws", ThreadID: "th",
		Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
		t.Fatal(err)
	}
	st.on.Store(true)

	var wg sync.WaitGroup
	type answer struct {
		code int
		body string
	}
	answers := map[string]*answer{}
	decide := func(c *inProcess, call string) {
		a := &answer{}
		answers[call] = a
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, b := c.do("POST", "/v1/turns/t/decisions", map[string]any{"tool_call_id": call, "tool_name": "read_file",
				"arguments": map[string]any{"path": filepath.Join(root, "a.txt")}})
			a.code, a.body = code, string(b)
		}()
	}
	wait := func(what string, ok func() bool) {
		deadline := time.Now().Add(5 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not reached", what)
			}
			time.Sleep(time.Millisecond) // polled: the arrivals have no event to wait on
		}
	}
	// The goroutines blocked waiting for a turn's lock.
	waiting := func() int {
		buf := make([]byte, 1<<22)
		n := runtime.Stack(buf, true)
		c := 0
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "engine.(*entry).lock(") {
				c++
			}
		}
		return c
	}
	decide(agent, "c1")
	wait("the agent's first decision appends", func() bool { return st.inFlight.Load() == 1 })
	decide(agent, "c2")
	decide(keeper, "k2")
	wait("the second decisions wait for the turn's lock", func() bool { return waiting() == 2 })

	if code, b := admin.do("POST", "/v1/credentials/agent/revoke", nil); code != http.StatusOK {
		t.Fatalf("revoke: %d %s", code, b)
	}
	close(st.gate)
	wg.Wait()

	for _, id := range []string{"c1", "k2"} {
		if a := answers[id]; a.code != http.StatusOK {
			t.Errorf("control: decision %s answered %d %.200s", id, a.code, a.body)
		}
	}
	if a := answers["c2"]; a.code != http.StatusUnauthorized {
		t.Errorf("the agent's decision that waited for the turn's lock while its credential was revoked: %d %.160s, want 401 credential_revoked", a.code, a.body)
	}
}

package egress

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack133_StalledBodyKeepsGrandchildLive: no hook this time. The
// agent stalls a plain POST's body in the child c1 (TestAttack133_Stalled
// BodyOutlivesTurn), which holds c1's end in Drain for its full 2 s. A
// person interrupts the root p: p's end is appended, then c1's drain
// waits. Meanwhile c2 (p's other child) is refused, as the
// hundred-and-thirty-first review wanted, but c2's child g is allowed a
// tool call and opens a tunnel through the egress proxy: the turn the
// person interrupted is two levels up.
// Control, in the same window: c2's decision and tunnel are refused; and
// before the interrupt g's decision and tunnel are allowed.
func TestAttack133_StalledBodyKeepsGrandchildLive(t *testing.T) {
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
	eng.SetBeforeEnd(p.Drain) // as serve wires them
	p.Recheck = 5 * time.Millisecond
	echo := echoServer(t)
	addr := startProxy(t, p)
	args, _ := json.Marshal(map[string]any{"cmd": []string{"ls"}})
	n := 0
	decideIn := func(id string) (domain.Behavior, error) {
		n++
		res, err := eng.Execute(ctx, id, &turn.EvaluateTool{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}},
			ToolCallID: fmt.Sprintf("call-%d", n), Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
		if err != nil {
			return 0, err
		}
		return res.Decision.Behavior, nil
	}
	tunnel := func(id string) string {
		c, _, st := dialConnect(t, addr, id, p.Credential(id), echo)
		c.Close()
		return st
	}
	if b, err := decideIn("g"); err != nil || b != domain.BehaviorAllow {
		t.Fatalf("control: g's decision before the interrupt: %v %v", b, err)
	}
	if st := tunnel("g"); !strings.HasPrefix(st, "200") {
		t.Fatalf("control: g's tunnel before the interrupt: %s", st)
	}
	// The stall, in c1: a body announced and never sent.
	upClosed := make(chan struct{})
	var once sync.Once
	up := listenOn(t, "127.0.0.1:0", func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 64<<10)
		for {
			if _, err := c.Read(buf); err != nil {
				once.Do(func() { close(upClosed) })
				return
			}
		}
	})
	sc, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	auth := base64.StdEncoding.EncodeToString([]byte("c1:" + p.Credential("c1")))
	fmt.Fprintf(sc, "POST http://%s/up HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\nContent-Length: 1048576\r\n\r\n%s", up, up, auth, strings.Repeat("x", 16))
	forwardBlockedIn(t, "(*body).Read")
	interrupted := make(chan error, 1)
	go func() {
		_, err := eng.Execute(ctx, "p", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: domain.Actor{Name: "alice", Role: domain.RoleApprover}},
			Status: turn.StatusInterrupted, Reason: "stop now"})
		interrupted <- err
	}()
	<-upClosed // c1's drain closed the upstream and now waits on the stalled handler
	gb, gerr := decideIn("g")
	gst := tunnel("g")
	_, cerr := decideIn("c2")
	cst := tunnel("c2")
	if err := <-interrupted; err != nil {
		t.Fatal(err)
	}
	sc.Close()
	if cerr == nil || strings.HasPrefix(cst, "200") {
		t.Fatalf("control: c2 in the same window: decision err %v, tunnel %s", cerr, cst)
	}
	if gerr == nil && gb == domain.BehaviorAllow {
		t.Errorf("p was interrupted; while c1's end drained, its grandchild g had a tool call allowed")
	}
	if strings.HasPrefix(gst, "200") {
		t.Errorf("p was interrupted; while c1's end drained, its grandchild g's egress proxy opened a tunnel: %s", gst)
	}
}

package egress

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack23LastWindowLostAtTurnEnd: the twenty-first review's fix
// records an open tunnel's bytes window by window, "a summary of a turn
// that ended with it would be dropped". It still is: what a tunnel carried
// since its last window (FlushEvery, 2 s, plus the flush's own 2 s delay)
// is accounted when the watch closes it at the turn's end, and its summary
// is refused by the ended turn. The agent ends its own turn (a Stop, or
// the runtime's end), so it carries a burst, gigabytes at the proxy's
// 1 GiB/s, and ends the turn within the window: none of it is recorded.
// Wanted: the turn's open connections accounted and their summaries
// recorded before its end is appended (or a summary of an ended turn's
// last window accepted). Control: what a tunnel closed before the end
// carried is recorded.
func TestAttack23LastWindowLostAtTurnEnd(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	if _, err := eng.Execute(context.Background(), "t", &turn.StartTurn{TurnID: "t", WorkspaceID: "ws", ThreadID: "th",
		Inputs: turn.Inputs{WorkspaceRoot: t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}}
	p := NewProxy(j, &mapResolver{})
	eng.SetBeforeEnd(p.Drain)                               // as serve wires them
	p.FlushEvery, p.Recheck = time.Hour, 5*time.Millisecond // one window: the test flushes itself
	closed := make(chan struct{}, 4)
	p.accounted = func(string) { closed <- struct{}{} }
	echo := listenOn(t, "127.0.0.1:0", func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			c.Write(buf[:n])
		}
	})
	addr := startProxy(t, p)
	open := func(n int) net.Conn {
		t.Helper()
		c, br, st := dialConnect(t, addr, "t", p.Credential("t"), echo)
		if !strings.HasPrefix(st, "200") {
			t.Fatalf("CONNECT: %s", st)
		}
		msg := strings.Repeat("\x01", n-1) // no method: a tunnel that begins with one (visible bytes) filling its first read is refused (tunnelhttp.go)
		if got, err := echoOnce(c, br, msg); err != nil || got != msg+"\n" {
			t.Fatalf("echo: %q %v", got, err)
		}
		return c
	}
	open(100).Close()
	<-closed
	p.Flush("t")
	if up := j.bytesUp(); up != 100 {
		t.Fatalf("control: a tunnel closed before the end carried 100 bytes up, recorded %d", up)
	}
	c := open(100000)
	defer c.Close()
	if _, err := eng.Execute(context.Background(), "t", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	<-closed // the watch closed the tunnel at the end and accounted it
	p.Flush("t")
	if up := j.bytesUp(); up != 100100 {
		t.Errorf("a tunnel open at its turn's end carried 100,000 bytes up in its last window; recorded in all: %d, want 100100", up)
	}
}

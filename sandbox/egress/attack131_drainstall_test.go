package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// stallingOrigin serves a plain HTTP answer whose body never ends (64 KiB
// writes until the proxy closes the connection); upClosed is closed when a
// write fails, i.e. when the proxy closed its upstream connection.
func stallingOrigin(t *testing.T) (addr string, upClosed <-chan struct{}) {
	t.Helper()
	done := make(chan struct{})
	var once sync.Once
	addr = listenOn(t, "127.0.0.1:0", func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1073741824\r\n\r\n")); err != nil {
			return
		}
		chunk := make([]byte, 64<<10)
		for {
			if _, err := c.Write(chunk); err != nil {
				once.Do(func() { close(done) })
				return
			}
		}
	})
	return addr, done
}

// stallPlainRequest sends a plain GET for turnID through the proxy at
// proxyAddr and never reads the answer: the proxy's handler ends up blocked
// writing the body to the client (forward's io.Copy into the
// ResponseWriter), which closing the upstream does not unblock. It returns
// once that handler is blocked in its write to the client.
func stallPlainRequest(t *testing.T, proxyAddr, turnID, cred, target string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp4", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	auth := base64.StdEncoding.EncodeToString([]byte(turnID + ":" + cred))
	fmt.Fprintf(c, "GET http://%s/big HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\n\r\n", target, target, auth)
	// Wait (polling the goroutines' stacks, not a timer) until the proxy's
	// copy of the answer is blocked writing to this client.
	buf := make([]byte, 8<<20)
	for i := 0; i < 20000; i++ {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "egress.narrowedWriter.Write") && strings.Contains(g, "waitWrite") {
				return c
			}
		}
		time.Sleep(time.Millisecond) // polling a state, not standing in for it
	}
	t.Fatal("setup: the proxy's copy of the unread answer never blocked on the client")
	return nil
}

// TestAttack131_DrainStallCarriesUnrecorded: a turn's end runs Proxy.Drain
// first, which closes the connections open at that moment and waits (up to
// drainWait, 2 s) for their handlers, then records the turn's summaries,
// and only then is the end appended. A plain request whose client (the
// agent's command) stops reading leaves its handler blocked writing to the
// client: closing its upstream does not wake it, so every end of the
// agent's turn waits the full 2 s, during which the turn is still live.
// A connection the agent opens in that window is not among those Drain
// closes and accounts, is allowed (its origin batched: no event at all),
// and what it carries until the end is appended is accounted only after
// the end, when the ended turn refuses the summary: none of it is
// recorded. Repeated at every turn end (the agent ends its own turns), at
// the proxy's speed that is gigabytes per end, never charged to the byte
// quota nor shown in the audit. Wanted: connections opened while a turn's
// end is draining refused (or accounted and recorded before the end), and
// a stalled client not able to hold the end open.
// Control: the same tunnel, carrying the same bytes before the end was
// asked for, is recorded.
func TestAttack131_DrainStallCarriesUnrecorded(t *testing.T) {
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
	p.FlushEvery, p.Recheck = time.Hour, 5*time.Millisecond // the test flushes itself
	accounted := make(chan struct{}, 16)
	p.accounted = func(string) { accounted <- struct{}{} }
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
	const n = 100000
	msg := strings.Repeat("\x01", n-1) // no method: see TestAttack23LastWindowLostAtTurnEnd
	open := func() (net.Conn, string) {
		t.Helper()
		c, br, st := dialConnect(t, addr, "t", p.Credential("t"), echo)
		if !strings.HasPrefix(st, "200") {
			return c, st
		}
		if got, err := echoOnce(c, br, msg); err != nil || got != msg+"\n" {
			t.Fatalf("echo: %d bytes, %v", len(got), err)
		}
		return c, st
	}

	// Control: the tunnel's bytes, carried and closed before the end was
	// asked for, are recorded (and its origin is now batched).
	c0, st0 := open()
	if !strings.HasPrefix(st0, "200") {
		t.Fatalf("control: CONNECT %s", st0)
	}
	c0.Close()
	<-accounted
	p.Flush("t")
	if up := j.bytesUp(); up != n {
		t.Fatalf("control: a tunnel closed before the end carried %d bytes up, recorded %d", n, up)
	}

	// The attack: a plain request left unread stalls the end's drain.
	big, upClosed := stallingOrigin(t)
	stalled := stallPlainRequest(t, addr, "t", p.Credential("t"), big)
	ended := make(chan error, 1)
	go func() {
		_, err := eng.Execute(context.Background(), "t", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted})
		ended <- err
	}()
	<-upClosed // Drain took the turn's open connections and closed them; it now waits on the stalled handler
	c1, st1 := open()
	if !strings.HasPrefix(st1, "200") {
		// Fixed: a turn whose end began admits no connection (and the
		// stalled write is ended at once): nothing is carried that no
		// summary records.
		t.Logf("the tunnel opened while the end drained was refused: %s", st1)
		if err := <-ended; err != nil {
			t.Fatal(err)
		}
		stalled.Close()
		return
	}
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	stalled.Close()
	c1.Close()
	<-accounted
	<-accounted
	p.Flush("t")
	if up := j.bytesUp(); up < 2*n {
		t.Errorf("a tunnel opened while the turn's end waited on a stalled request carried %d bytes up before the end; recorded in all %d bytes up, want at least %d (the control's and this tunnel's)", n, up, 2*n)
	}
}

// TestAttack131_DrainStallCarriesUnrecordedControl: without a stalled
// request, the same tunnel, open with the same bytes carried when the turn
// ends, is drained and its bytes recorded before the end.
func TestAttack131_DrainStallCarriesUnrecordedControl(t *testing.T) {
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
	eng.SetBeforeEnd(p.Drain)
	p.FlushEvery, p.Recheck = time.Hour, 5*time.Millisecond
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
	const n = 100000
	msg := strings.Repeat("\x01", n-1)
	c, br, st1 := dialConnect(t, addr, "t", p.Credential("t"), echo)
	if !strings.HasPrefix(st1, "200") {
		t.Fatalf("CONNECT: %s", st1)
	}
	if got, err := echoOnce(c, br, msg); err != nil || got != msg+"\n" {
		t.Fatalf("echo: %d bytes, %v", len(got), err)
	}
	if _, err := eng.Execute(context.Background(), "t", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if up := j.bytesUp(); up != n {
		t.Fatalf("a tunnel open at the end carried %d bytes up; recorded %d", n, up)
	}
}

// TestAttack131_StalledRequestOutlivesTurn: the close Drain and the watch
// give a plain request (its upstream closed, narrowed marked) does not end
// a handler blocked writing the answer to a client that stopped reading:
// the shared listener's server has no write timeout, so the handler, its
// tracked tunnel and the turn's watch (which judges the ended turn again,
// and checks the credential, every Recheck, 250 ms) live on after the turn
// has ended, for as long as the agent leaves the connection unread. Each
// such request pins a goroutine, a proxy connection and a 4 Hz watch that
// reads an ended (perhaps evicted, so reloaded from the store) turn.
// Wanted: an ended turn's connections gone, whatever their client does
// (the client's connection closed too, or a write deadline).
// Control: the same request whose client reads is gone once the turn ends.
func TestAttack131_StalledRequestOutlivesTurn(t *testing.T) {
	for _, reads := range []bool{true, false} {
		name := "stalled"
		if reads {
			name = "control: the client reads"
		}
		t.Run(name, func(t *testing.T) {
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
			eng.SetBeforeEnd(p.Drain)
			p.Recheck = 5 * time.Millisecond
			rechecks := make(chan struct{}, 1024)
			p.rechecked = func(string, int64) {
				select {
				case rechecks <- struct{}{}:
				default:
				}
			}
			finished := make(chan struct{}, 16)
			p.accounted = func(string) { finished <- struct{}{} } // after the handler untracked its connection
			addr := startProxy(t, p)
			big, _ := stallingOrigin(t)
			c := stallPlainRequest(t, addr, "t", p.Credential("t"), big)
			if reads {
				go func() {
					buf := make([]byte, 64<<10)
					for {
						if _, err := c.Read(buf); err != nil {
							return
						}
					}
				}()
			}
			if _, err := eng.Execute(context.Background(), "t", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted}); err != nil {
				t.Fatal(err)
			}
			// Let the watch judge the ended turn several times (it closes
			// what it denies at each), then look.
			for len(rechecks) > 0 {
				<-rechecks
			}
			for range 4 {
				if p.Open("t") == 0 {
					break
				}
				select {
				case <-rechecks:
				case <-finished:
				}
			}
			if n := p.Open("t"); n != 0 {
				t.Errorf("the turn has ended and its watch closed its connections four times since; %d connection of it is still open (its handler blocked writing to a client that does not read)", n)
			}
		})
	}
}

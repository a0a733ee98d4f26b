package egress

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// holdingOrigin accepts connections and reads what they send, never
// answering (until the proxy closes them).
func holdingOrigin(t *testing.T) string {
	t.Helper()
	return listenOn(t, "127.0.0.1:0", func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 64<<10)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
}

// forwardBlockedIn polls the goroutines' stacks (a state, not a timer)
// until a forward handler's stack holds frame.
func forwardBlockedIn(t *testing.T, frame string) {
	t.Helper()
	buf := make([]byte, 8<<20)
	for i := 0; i < 20000; i++ {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "egress.(*Proxy).forward") && strings.Contains(g, frame) {
				return
			}
		}
		time.Sleep(time.Millisecond) // polling a state, not standing in for it
	}
	t.Fatalf("setup: no forward handler blocked in %s", frame)
}

// TestAttack133_StalledBodyOutlivesTurn: the hundred-and-thirty-first
// review's fix ends a plain request's handler blocked WRITING its answer
// to a client that does not read (tunnel.kick: a write deadline in the
// past). A handler blocked READING the request's body from its client is
// not reached by it: the agent sends a plain POST through the proxy with
// Content-Length: 1 MiB and sends 16 bytes of it, then nothing. forward's
// out.Write copies the body from the client and blocks there; closing the
// upstream (Drain, the watch) does not wake it, the kick only sets a write
// deadline, and the proxy's server has no read timeout. Its turn ends:
// Drain waits its full 2 s (the end, and with it every later child's end,
// held), and the handler, its tracked connection, the ended turn's 4 Hz
// watch and (on the shared listener) its slot live on for as long as the
// agent keeps the socket open.
// Control: the same POST whose client sent its whole body, its handler
// blocked waiting for the upstream's answer instead: gone once the turn
// ends.
func TestAttack133_StalledBodyOutlivesTurn(t *testing.T) {
	for _, whole := range []bool{true, false} {
		name := "stalled body"
		if whole {
			name = "control: the whole body sent, the upstream silent"
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
			p.accounted = func(string) { finished <- struct{}{} }
			addr := startProxy(t, p)
			up := holdingOrigin(t)
			c, err := net.Dial("tcp4", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			auth := base64.StdEncoding.EncodeToString([]byte("t:" + p.Credential("t")))
			size := 1 << 20
			if whole {
				size = 16
			}
			fmt.Fprintf(c, "POST http://%s/up HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\nContent-Length: %d\r\n\r\n%s", up, up, auth, size, strings.Repeat("x", 16))
			if whole {
				forwardBlockedIn(t, "readFinalResponse")
			} else {
				forwardBlockedIn(t, "(*body).Read")
			}
			if p.Open("t") != 1 {
				t.Fatalf("setup: %d connections open", p.Open("t"))
			}
			if _, err := eng.Execute(context.Background(), "t", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted}); err != nil {
				t.Fatal(err)
			}
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
				t.Errorf("the turn has ended and its watch closed its connections four times since; %d connection of it is still open (its handler blocked reading a request body the client never sends)", n)
			}
		})
	}
}

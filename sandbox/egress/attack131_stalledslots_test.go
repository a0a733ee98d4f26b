package egress

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// blockedWriters counts the proxy's handlers blocked writing an answer to
// their client.
func blockedWriters() int {
	buf := make([]byte, 8<<20)
	n := runtime.Stack(buf, true)
	k := 0
	for _, g := range strings.Split(string(buf[:n]), "\n\n") {
		if strings.Contains(g, "egress.narrowedWriter.Write") && strings.Contains(g, "waitWrite") {
			k++
		}
	}
	return k
}

// TestAttack131_StalledRequestsHoldSharedSlots: the shared listener
// (--egress-listen, the runtimes' own web tools) holds at most half of
// MaxConns connections (up to 2,048), with no share per principal. The
// agent sends that many plain requests through it to a server of its own
// that answers a long body, and reads none of the answers: each handler
// blocks writing to its client, which no close of the upstream wakes (no
// write deadline). Its turn then ends (or its credential is revoked): the
// proxy closes the upstreams and the handlers stay, each holding its slot,
// for as long as the agent leaves its sockets unread. Every other
// principal's web tools are answered 503 by the shared proxy meanwhile,
// after the agent's turn and credential are gone. Wanted: an ended turn's
// (a revoked credential's) connections release their slots, whatever
// their client does; and a principal's share of the shared listener
// bounded. Control: the same requests read by their client leave the
// slots free once the turn has ended.
func TestAttack131_StalledRequestsHoldSharedSlots(t *testing.T) {
	for _, reads := range []bool{true, false} {
		name := "stalled"
		if reads {
			name = "control: the agent's client reads"
		}
		t.Run(name, func(t *testing.T) {
			st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			eng := engine.New(st, engine.Config{})
			for _, id := range []string{"agent", "other"} {
				if _, err := eng.Execute(context.Background(), id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
					Inputs: turn.Inputs{WorkspaceRoot: t.TempDir()}}); err != nil {
					t.Fatal(err)
				}
			}
			j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}}
			p := NewProxy(j, &mapResolver{})
			eng.SetBeforeEnd(p.Drain)
			p.Recheck = 5 * time.Millisecond
			const slots = 3
			p.MaxConns = 2 * slots // the shared listener holds half of them
			finished := make(chan struct{}, 16)
			p.accounted = func(string) { finished <- struct{}{} }
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := p.Server(p.Handler(), 10*time.Second)
			go srv.Serve(p.Limit(ln, true)) // the shared listener
			t.Cleanup(func() { srv.Close() })
			addr := ln.Addr().String()
			big, _ := stallingOrigin(t)
			auth := base64.StdEncoding.EncodeToString([]byte("agent:" + p.Credential("agent")))
			var conns []net.Conn
			for range slots {
				c, err := net.Dial("tcp4", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				fmt.Fprintf(c, "GET http://%s/big HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\n\r\n", big, big, auth)
				conns = append(conns, c)
			}
			for i := 0; blockedWriters() < slots; i++ {
				if i > 20000 {
					t.Fatal("setup: the proxy's copies never blocked")
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			if reads {
				for _, c := range conns {
					go func() {
						buf := make([]byte, 64<<10)
						for {
							if _, err := c.Read(buf); err != nil {
								return
							}
						}
					}()
				}
			}
			if _, err := eng.Execute(context.Background(), "agent", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted}); err != nil {
				t.Fatal(err)
			}
			if reads {
				for range slots {
					<-finished // each handler returned (and gave its slot back as its connection closes)
				}
				for _, c := range conns {
					c.Close()
				}
			}
			// Another principal's turn, through the same shared listener.
			_, ok := origin(t, "ok")
			var code int
			var body string
			for attempt := 0; attempt < 500; attempt++ { // a slot is freed as the closed connection's serve returns
				resp, err := proxyClient(p.ProxyURL(addr, "other")).Get("http://" + ok + "/")
				if err != nil {
					code, body = 0, err.Error()
				} else {
					b := make([]byte, 256)
					n, _ := resp.Body.Read(b)
					resp.Body.Close()
					code, body = resp.StatusCode, string(b[:n])
				}
				if code == http.StatusOK || !reads {
					break
				}
				time.Sleep(10 * time.Millisecond) // control only: waiting for the closed connections' slots
			}
			if code != http.StatusOK {
				t.Errorf("the agent's turn has ended; another turn's request through the shared proxy: %d %q (the agent's %d unread requests hold every slot)", code, body, slots)
			}
		})
	}
}

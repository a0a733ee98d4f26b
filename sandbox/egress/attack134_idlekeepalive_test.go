package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack134_AnsweredKeepAliveOutlivesTurn: the hundred-and-thirty-third
// review's fix closes a refused request's connection (Connection: close on
// a 403), so an ended turn's credential no longer keeps the shared
// listener's slots by sending refused requests. But an ANSWERED plain
// request keeps its client connection alive (the upstream's Connection:
// close is a hop header the proxy drops, and the proxy sets none), and a
// turn's end (Drain) closes the requests in flight only, not a connection
// idle between requests. The agent, while its turn is live, sends one
// allowed GET on each of as many connections as the shared listener holds
// and keeps them open; the turn ends; the connections stay, idle, holding
// every slot until the 2-minute idle timeout (and the agent need send
// nothing more). Another turn's web tool gets 503.
// Control: the same requests sent with Connection: close (the honest
// client) release their slots, and the other turn's request is answered.
func TestAttack134_AnsweredKeepAliveOutlivesTurn(t *testing.T) {
	for _, keep := range []bool{false, true} {
		name := "answered keep-alive connections"
		if !keep {
			name = "control: Connection: close"
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
			const slots = 3
			p.MaxConns = 2 * slots // the shared listener holds half of them
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := p.Server(p.Handler(), 10*time.Second)
			go srv.Serve(p.Limit(ln, true)) // the shared listener
			t.Cleanup(func() { srv.Close() })
			addr := ln.Addr().String()
			_, ok := origin(t, "ok")
			auth := base64.StdEncoding.EncodeToString([]byte("agent:" + p.Credential("agent")))
			// While the agent's turn is live: one allowed request per
			// connection, answered.
			for range slots {
				c, err := net.Dial("tcp4", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				hdr := ""
				if !keep {
					hdr = "Connection: close\r\n"
				}
				fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\n%s\r\n", ok, ok, auth, hdr)
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("setup: the agent's request while its turn was live answered %d", resp.StatusCode)
				}
				if !keep {
					// The server closes it: wait for that (a state, not a timer).
					if _, err := br.ReadByte(); err == nil {
						t.Fatal("control: a Connection: close request's connection carried more")
					}
					c.Close()
				} else {
					t.Logf("answered, connection kept: close=%v", resp.Close)
				}
			}
			if _, err := eng.Execute(context.Background(), "agent", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusInterrupted, Reason: "stop"}); err != nil {
				t.Fatal(err)
			}
			var code int
			var body string
			for attempt := 0; attempt < 500; attempt++ {
				resp, err := proxyClient(p.ProxyURL(addr, "other")).Get("http://" + ok + "/")
				if err != nil {
					code, body = 0, err.Error()
				} else {
					b := make([]byte, 256)
					n, _ := resp.Body.Read(b)
					resp.Body.Close()
					code, body = resp.StatusCode, string(b[:n])
				}
				if code == http.StatusOK || keep {
					break
				}
				time.Sleep(10 * time.Millisecond) // control only: the closed connections' slots are given back as their serve returns
			}
			if code != http.StatusOK {
				t.Errorf("the agent's turn was interrupted; another turn's request through the shared proxy: %d %q (the agent's %d answered keep-alive connections, idle, hold every slot)", code, body, slots)
			}
		})
	}
}

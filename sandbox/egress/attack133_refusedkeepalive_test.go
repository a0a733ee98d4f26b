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

// TestAttack133_EndedTurnKeepsSharedSlots: the shared listener
// (--egress-listen) closes a connection without credentials after its 407
// ("keeps no slot of the proxy"), and the hundred-and-thirty-first review
// wanted an ended turn's connections to release their slots whatever
// their client does. A request whose credential is good but whose turn
// has ended (or whose principal's credential was revoked) is answered 403
// and its connection kept alive: the agent, its turn over, opens as many
// connections as the shared listener holds and sends one refused request
// on each (again within the 2-minute idle timeout to keep them): every
// slot stays the agent's, and another principal's web tool gets 503.
// Control: the same connections whose requests carry no credential are
// closed after their 407, and the other principal's request is answered.
func TestAttack133_EndedTurnKeepsSharedSlots(t *testing.T) {
	for _, withCred := range []bool{false, true} {
		name := "ended turn's credential"
		if !withCred {
			name = "control: no credential (407, closed)"
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
			if _, err := eng.Execute(context.Background(), "agent", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted}); err != nil {
				t.Fatal(err)
			}
			auth := base64.StdEncoding.EncodeToString([]byte("agent:" + p.Credential("agent")))
			for range slots {
				c, err := net.Dial("tcp4", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				hdr := ""
				if withCred {
					hdr = "Proxy-Authorization: Basic " + auth + "\r\n"
				}
				fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n%s\r\n", ok, ok, hdr)
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				want := http.StatusForbidden
				if !withCred {
					want = http.StatusProxyAuthRequired
				}
				if resp.StatusCode != want {
					t.Fatalf("setup: the agent's request answered %d, want %d", resp.StatusCode, want)
				}
				if !withCred {
					// The server closes it: wait for that (a state, not a timer).
					if _, err := br.ReadByte(); err == nil {
						t.Fatal("control: a 407's connection carried more")
					}
					c.Close()
				} else {
					t.Logf("refused (%s), connection kept: close=%v", resp.Header.Get(HeaderRefusal), resp.Close)
				}
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
				if code == http.StatusOK || withCred {
					break
				}
				time.Sleep(10 * time.Millisecond) // control only: the closed connections' slots are given back as their serve returns
			}
			if code != http.StatusOK {
				t.Errorf("the agent's turn has ended; another turn's request through the shared proxy: %d %q (the agent's %d refused keep-alive connections hold every slot)", code, body, slots)
			}
		})
	}
}

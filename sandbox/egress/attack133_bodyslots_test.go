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

// bodyReaders counts the forward handlers blocked reading a request body
// from their client.
func bodyReaders() int {
	buf := make([]byte, 8<<20)
	n := runtime.Stack(buf, true)
	k := 0
	for _, g := range strings.Split(string(buf[:n]), "\n\n") {
		if strings.Contains(g, "egress.(*Proxy).forward") && strings.Contains(g, "(*body).Read") {
			k++
		}
	}
	return k
}

// TestAttack133_StalledBodiesHoldSharedSlots: the hundred-and-thirty-first
// review's TestAttack131_StalledRequestsHoldSharedSlots, with the request
// bodies stalled instead of the answers unread. The agent sends as many
// plain POSTs through the shared listener (--egress-listen) as it holds
// slots, each announcing a 1 MiB body and sending 16 bytes of it. Its turn
// ends: the upstreams are closed and the write deadline set (the fix), and
// every handler stays blocked reading its body: each keeps its slot, and
// another principal's request through the shared proxy is answered 503,
// after the agent's turn is gone.
// Control: the same POSTs whose clients then close their sockets free the
// slots, and the other principal's request is answered 200.
func TestAttack133_StalledBodiesHoldSharedSlots(t *testing.T) {
	for _, closes := range []bool{true, false} {
		name := "stalled bodies"
		if closes {
			name = "control: the agent's clients close"
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
			up := holdingOrigin(t)
			auth := base64.StdEncoding.EncodeToString([]byte("agent:" + p.Credential("agent")))
			var conns []net.Conn
			for range slots {
				c, err := net.Dial("tcp4", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				fmt.Fprintf(c, "POST http://%s/up HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\nContent-Length: 1048576\r\n\r\n%s", up, up, auth, strings.Repeat("x", 16))
				conns = append(conns, c)
			}
			for i := 0; bodyReaders() < slots; i++ {
				if i > 20000 {
					t.Fatal("setup: the proxy's body reads never blocked")
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			if closes {
				for _, c := range conns {
					c.Close()
				}
			}
			if _, err := eng.Execute(context.Background(), "agent", &turn.EndTurn{Meta: turn.Meta{Now: time.Now().UTC(), Actor: Actor}, Status: turn.StatusCompleted}); err != nil {
				t.Fatal(err)
			}
			if closes {
				for range slots {
					<-finished
				}
			}
			_, ok := origin(t, "ok")
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
				if code == http.StatusOK || !closes {
					break
				}
				time.Sleep(10 * time.Millisecond) // control only: waiting for the closed connections' slots
			}
			if code != http.StatusOK {
				t.Errorf("the agent's turn has ended; another turn's request through the shared proxy: %d %q (the agent's %d stalled bodies hold every slot)", code, body, slots)
			}
		})
	}
}

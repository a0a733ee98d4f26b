package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"turnstile/api"
	"turnstile/domain/eventstore"
)

// dialRPC opens GET /rpc as a WebSocket with query q; rcvbuf > 0 shrinks
// the client's receive buffer.
func (s *sseServer) dialRPC(q string, rcvbuf int) *websocket.Conn {
	s.t.Helper()
	u, err := url.Parse(s.url)
	if err != nil {
		s.t.Fatal(err)
	}
	cfg, err := websocket.NewConfig("ws://"+u.Host+"/rpc?"+q, s.url)
	if err != nil {
		s.t.Fatal(err)
	}
	cfg.Header.Set("Authorization", "Bearer "+s.token)
	conn, err := rcvbufDialer(rcvbuf).Dial("tcp", u.Host)
	if err != nil {
		s.t.Fatal(err)
	}
	ws, err := websocket.NewClient(cfg, conn)
	if err != nil {
		conn.Close()
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { ws.Close() })
	return ws
}

type rpcMessage struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Error  *struct {
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func readRPC(ws *websocket.Conn) (rpcMessage, error) {
	var raw []byte
	if err := websocket.Message.Receive(ws, &raw); err != nil {
		return rpcMessage{}, err
	}
	var m rpcMessage
	err := json.Unmarshal(raw, &m)
	return m, err
}

// TestRPCSocketSharesTheBroadcast: JSON-RPC WebSockets get their
// notifications from the process's one broadcast, like the event stream:
// each of five sockets receives every event appended after its upgrade, in
// the order and with the methods an SSE client sees, while every event is
// encoded once (not once per socket) and no socket reads the store itself.
// A socket filtered to one turn gets that turn's events only.
func TestRPCSocketSharesTheBroadcast(t *testing.T) {
	var subs atomic.Int64
	s := startSSEWith(t, api.Config{}, 0, func(st eventstore.Store) eventstore.Store { return &countSubs{st, &subs} })
	s.decisions("warm", 0, 1)
	start := s.proj.Position()
	sse := s.openSSE("from=now", "", 0)
	sockets := make([]*websocket.Conn, 5)
	for i := range sockets {
		sockets[i] = s.dialRPC("", 0)
	}
	one := s.dialRPC("turn_id=t2", 0)
	s.decisions("warm", 1, 15)
	s.decisions("t2", 0, 15)
	want := s.turnPositions(start)
	if t.Failed() || len(want) < 31 {
		t.Fatalf("%d events appended, want 30 decisions and a turn's start", len(want))
	}
	var methods []string
	var t2 int
	for range want {
		f, err := sse.next()
		if err != nil {
			t.Fatal(err)
		}
		methods = append(methods, f.event)
		if strings.Contains(f.data, `"t2"`) {
			t2++
		}
	}
	for i, ws := range append(sockets, one) {
		n := len(methods)
		if ws == one {
			n = t2
		}
		ws.SetReadDeadline(time.Now().Add(time.Minute))
		for k := range n {
			m, err := readRPC(ws)
			if err != nil {
				t.Fatalf("socket %d: notification %d of %d: %v", i, k+1, n, err)
			}
			if ws != one && m.Method != methods[k] {
				t.Fatalf("socket %d: notification %d is %q, the event stream's is %q", i, k+1, m.Method, methods[k])
			}
			if ws == one && !strings.Contains(string(m.Params), `"t2"`) {
				t.Fatalf("the socket filtered to t2 got %s %s", m.Method, m.Params)
			}
		}
	}
	if got := s.metric(`turnstile_sse_frames_encoded_total{path="broadcast"}`); got != float64(len(want)) {
		t.Fatalf("frames encoded for the broadcast: %v, want %d (one per event, not one per socket)", got, len(want))
	}
	if got := s.metric(`turnstile_sse_frames_encoded_total{path="catch_up"}`); got != 0 {
		t.Fatalf("a live reader read the store itself: %v catch-up frames", got)
	}
	if got := subs.Load(); got != 1 {
		t.Fatalf("%d store subscriptions for one event stream and six sockets, want 1 (the broadcast's)", got)
	}
}

// countSubs counts the subscriptions taken from a store.
type countSubs struct {
	eventstore.Store
	n *atomic.Int64
}

func (c *countSubs) Subscribe(ctx context.Context, from eventstore.Position, prefix string) (eventstore.Subscription, error) {
	c.n.Add(1)
	return c.Store.Subscribe(ctx, from, prefix)
}

// TestRPCSocketSlowConsumerCutOff: a socket that stops reading while
// events keep coming is cut off once it is more than the broadcast's buffer
// behind: after what was queued it gets a JSON-RPC error naming
// slow_consumer and the last event it got, then the socket closes. A socket
// reading at the same time is not cut off and gets every event (the
// control).
func TestRPCSocketSlowConsumerCutOff(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 256, SSESlowGrace: time.Minute}, 8192)
	s.decisions("t", 0, 1)
	start := s.proj.Position()
	fast := s.dialRPC("", 0)
	slow := s.dialRPC("", 4096)
	fastGot := make(chan string, 10000)
	go func() {
		defer close(fastGot)
		for {
			m, err := readRPC(fast)
			if err != nil {
				return
			}
			if m.Error != nil {
				t.Errorf("the reading socket got an error: %+v", m.Error)
				return
			}
			fastGot <- m.Method
		}
	}()
	s.decideUntilCut("t", 1)
	want := s.turnPositions(start)

	var got int
	var reason *rpcMessage
	slow.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		m, err := readRPC(slow)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the cut-off socket was not closed: %v", err)
			}
			break
		}
		if m.Error != nil {
			reason = &m
			continue
		}
		if reason != nil {
			t.Fatalf("a notification after the close reason: %s", m.Method)
		}
		got++
	}
	if reason == nil || reason.Error.Data["code"] != "slow_consumer" || reason.Error.Data["last_event_id"] == "" {
		t.Fatalf("cut off without a slow_consumer error: %+v", reason)
	}
	if got >= len(want) {
		t.Fatalf("the slow socket got %d of %d events: it was not behind", got, len(want))
	}
	timeout := time.After(time.Minute)
	for i := range want {
		select {
		case _, ok := <-fastGot:
			if !ok {
				t.Fatalf("the reading socket ended after %d of %d events", i, len(want))
			}
		case <-timeout:
			t.Fatalf("the reading socket got %d of %d events in a minute", i, len(want))
		}
	}
}

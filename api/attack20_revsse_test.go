package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"turnstile/api"
)

// TestRevSSERuntimeSocketClosedOnRevoke: the README says a JSON-RPC
// WebSocket of a revoked credential "answers its next call, or within that
// second, with a credential_revoked error and closes". A runtime's socket
// (a role that may not follow events, so it has no notification loop) that
// sends no call after the revocation stays open, silent, for as long as
// the agent likes. The control: an approver's socket, opened at the same
// time, gets credential_revoked and closes within the second.
func TestRevSSERuntimeSocketClosedOnRevoke(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("t", 0, 1)
	agent := s.as(s.credential("agent", "runtime"))
	alice := s.as(s.credential("alice", "approver"))
	rt := agent.dialRPC("", 0)
	ap := alice.dialRPC("", 0)
	// Both work before the revocation (the control of the dial).
	for _, ws := range []*websocket.Conn{rt, ap} {
		ws.SetDeadline(time.Now().Add(30 * time.Second))
		if err := websocket.Message.Send(ws, `{"jsonrpc":"2.0","id":1,"method":"turn/get","params":{"turn_id":"t"}}`); err != nil {
			t.Fatal(err)
		}
		for {
			var raw string
			if err := websocket.Message.Receive(ws, &raw); err != nil {
				t.Fatalf("before the revocation: %v", err)
			}
			if strings.Contains(raw, `"id":1`) {
				if !strings.Contains(raw, `"result"`) {
					t.Fatalf("a call before the revocation: %s", raw)
				}
				break
			}
		}
	}
	for _, name := range []string{"agent", "alice"} {
		if st, b := s.do("POST", "/v1/credentials/"+name+"/revoke", nil); st != http.StatusOK {
			t.Fatalf("revoke %s: %d %s", name, st, b)
		}
	}
	ended := func(ws *websocket.Conn) string {
		ws.SetReadDeadline(time.Now().Add(3 * api.CredentialRecheck))
		var last string
		for {
			var raw string
			if err := websocket.Message.Receive(ws, &raw); err != nil {
				if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
					return "still open, silent, " + (3 * api.CredentialRecheck).String() + " after the revocation"
				}
				if strings.Contains(last, "credential_revoked") {
					return ""
				}
				return "closed without credential_revoked (last " + last + ")"
			}
			last = raw
		}
	}
	if why := ended(ap); why != "" {
		t.Fatalf("control: the approver's socket: %s", why)
	}
	if why := ended(rt); why != "" {
		t.Fatalf("the runtime's socket: %s", why)
	}
}

// TestRevSSEStuckTurnStreamIsClosed: a client that stops reading is cut
// off and, after the grace, closed (docs/events.md: "A client that does not
// read at all has 5 s after the cut to take what is queued; then its
// connection is closed"). The control: a stream filtered to the turn's
// workspace, stuck the same way, is closed once the ring has moved on. A
// ?turn_id= stream stuck in the write of its turn's last batch (here one
// large approval request: its queue is empty, its turn quiet) is never cut
// off, however far the ring moves: it holds its connection, its goroutine
// and the copy of the batch it is writing (up to 128 frames) for good.
func TestRevSSEStuckTurnStreamIsClosed(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 64, SSESlowGrace: 200 * time.Millisecond, SSEWriteTimeout: time.Second}, 8192)
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "q", "workspace_id": "ws-q",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": s.root}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	s.openSSE("workspace_id=ws-q&from=now", "", 4096) // never read (the control)
	s.openSSE("turn_id=q&from=now", "", 4096)         // never read
	// One large frame: more than the sockets' buffers hold.
	if st, b := s.do("POST", "/v1/turns/q/decisions", map[string]any{"tool_call_id": "big", "tool_name": "exec_command",
		"arguments": map[string]any{"cmd": "echo " + strings.Repeat("x", 120<<10)}}); st != http.StatusOK || !strings.Contains(string(b), `"ask"`) {
		t.Fatalf("decide: %d %.300s", st, b)
	}
	// Then q goes quiet while another turn appends: the ring wraps.
	s.decisions("o", 0, 400)
	clients := func() float64 { return s.metric("turnstile_sse_clients") }
	deadline := time.Now().Add(10 * time.Second)
	for clients() > 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := clients(); got > 1 {
		t.Fatalf("control: the stuck workspace stream is still open (%v clients)", got)
	}
	s.decisions("o", 400, 400)
	deadline = time.Now().Add(5 * time.Second)
	for clients() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := clients(); got != 0 {
		t.Fatalf("the stuck ?turn_id= stream is still open 800 events (%d x the ring) after its turn's last (slow disconnects: %v)",
			800/64, s.metric("turnstile_sse_slow_consumer_disconnects_total"))
	}
}

// TestRevSSEStuckCatchUpIsClosed: a client that resumes (here from=start)
// and stops reading while its catch-up is being written is neither cut off
// (it has not joined the broadcast), nor closed after the grace, nor ended
// by the revocation of its credential (checked between pages, and the
// catch-up is blocked in a page's write): it holds its connection, its
// goroutine, the page of encoded frames (up to 512, of every workspace)
// and the copy being written, for as long as it likes. The control: a live
// client stuck the same way is cut off and closed after the grace.
func TestRevSSEStuckCatchUpIsClosed(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 64, SSESlowGrace: 200 * time.Millisecond, SSEWriteTimeout: time.Second}, 8192)
	s.decisions("h", 0, 400) // history: far more than the sockets hold
	alice := s.as(s.credential("alice", "auditor"))
	bob := s.as(s.credential("bob", "auditor"))
	alice.openSSE("from=start", "", 4096) // never read: stuck in its catch-up
	bob.openSSE("from=now", "", 4096)     // never read: stuck live (the control)
	if st, b := s.do("POST", "/v1/credentials/alice/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	s.decisions("h", 400, 400) // the ring (64) wraps six times over
	clients := func() float64 { return s.metric("turnstile_sse_clients") }
	deadline := time.Now().Add(10 * time.Second)
	for clients() > 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := clients(); got > 1 {
		t.Fatalf("control: the stuck live stream is still open (%v clients)", got)
	}
	deadline = time.Now().Add(5 * time.Second)
	for clients() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := clients(); got != 0 {
		t.Fatalf("the stuck catch-up stream, its credential revoked, is still open 5 s after the live one was closed (%v clients)", got)
	}
}

// TestRevSSEStuckTurnSocketIsClosed: as TestRevSSEStuckTurnStreamIsClosed,
// over the JSON-RPC WebSocket: a socket filtered to a turn, stuck in the
// write of its turn's last (large) notification, is never cut off nor
// closed; the control, a socket filtered to the workspace stuck the same
// way, is closed once the ring has moved on. Reading afterwards tells them
// apart: the closed socket ends (EOF), the other is still open.
func TestRevSSEStuckTurnSocketIsClosed(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 64, SSESlowGrace: 200 * time.Millisecond, SSEWriteTimeout: time.Second}, 8192)
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "q", "workspace_id": "ws-q",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": s.root}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	byWS := s.dialRPC("workspace_id=ws-q", 4096)
	byTurn := s.dialRPC("turn_id=q", 4096)
	if st, b := s.do("POST", "/v1/turns/q/decisions", map[string]any{"tool_call_id": "big", "tool_name": "exec_command",
		"arguments": map[string]any{"cmd": "echo " + strings.Repeat("x", 120<<10)}}); st != http.StatusOK || !strings.Contains(string(b), `"ask"`) {
		t.Fatalf("decide: %d %.300s", st, b)
	}
	s.decisions("o", 0, 800) // the ring wraps twelve times
	time.Sleep(2 * time.Second)
	closed := func(ws *websocket.Conn) bool {
		ws.SetReadDeadline(time.Now().Add(2 * time.Second))
		for {
			var raw []byte
			if err := websocket.Message.Receive(ws, &raw); err != nil {
				ne, ok := err.(interface{ Timeout() bool })
				return !ok || !ne.Timeout()
			}
		}
	}
	if !closed(byWS) {
		t.Fatal("control: the stuck workspace socket is still open")
	}
	if !closed(byTurn) {
		t.Fatal("the stuck ?turn_id= socket is still open, 800 events after its turn's last")
	}
}

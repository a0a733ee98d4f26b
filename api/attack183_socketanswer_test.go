package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"turnstile/api"
)

// TestAttack183_SocketAnswerOutsideBodyBudget (review 183): "Any other
// answer of 64 KiB or more (a long list, a large turn) is held against the
// request's share of --max-body-memory while it is written ... (past the
// share: 503 server_busy)" (README, Quotas), and a JSON-RPC batch's answers
// are held until they are sent. A single call over the JSON-RPC WebSocket
// (GET /rpc) is answered outside that budget: serveRPCSocket marshals the
// answer (and websocket.Message.Send copies it into a string) without
// holding it, and keeps both for as long as the client takes to read them
// (SSEWriteTimeout, 30 s). The agent, holding the runtime's credential,
// reads the same large turn (a snapshot may take 3 MiB) on each of
// its 256 sockets and reads none of the answers: the server holds several
// MiB per socket beyond --max-body-memory, the bound that is there so "the
// agent cannot have the server killed for its memory (an http hook then
// lets every call run)". The same read over REST, and over POST /rpc, is
// refused 503 server_busy once it is past the credential's share.
// The same holds for a POST /rpc batch of one such read: rpcBatch gives the
// answer that takes it past the budget without holding it (so that a call
// that ran is answered), and a read has nothing to report.
//
// Control: while the answer fits the share, the socket, POST /rpc and REST
// all answer it; past it, REST and a single POST /rpc call are refused
// server_busy.
func TestAttack183_SocketAnswerOutsideBodyBudget(t *testing.T) {
	s := startSSE(t, api.Config{MaxBodyMemory: 1 << 20}, 0) // a credential's share: 512 KiB
	agent := s.as(s.credential("agent183", "runtime"))
	// startParams are a turn's in auto_accept_edits with n writable
	// project roots: each adds the protected list (tens of KB) to its
	// snapshot.
	startParams := func(id string, n int) map[string]any {
		t.Helper()
		var roots []string
		for i := range n {
			roots = append(roots, filepath.Join(s.root, fmt.Sprintf("project-%02d", i)))
			if err := os.MkdirAll(roots[i], 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "auto_accept_edits"}, "workspace_root": s.root, "project_roots": roots}
	}
	ws := agent.dialRPC("", 0)
	ws.SetDeadline(time.Now().Add(time.Minute))
	// socketCall makes one call over the socket: the error's code, or
	// the result's turn id and position, and the answer's size.
	socketCall := func(method string, params any) (errCode, turnID, position string, size int) {
		t.Helper()
		call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		if err := websocket.Message.Send(ws, string(call)); err != nil {
			t.Fatal(err)
		}
		var raw []byte
		if err := websocket.Message.Receive(ws, &raw); err != nil {
			t.Fatal(err)
		}
		var m struct {
			Result *struct {
				Turn struct {
					ID string `json:"id"`
				} `json:"turn"`
				Position string `json:"position"`
			} `json:"result"`
			Error *struct {
				Data map[string]any `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("socket answer: %v %.200s", err, raw)
		}
		if m.Error != nil {
			code, _ := m.Error.Data["code"].(string)
			return code, "", "", len(raw)
		}
		if m.Result == nil {
			t.Fatalf("socket answer: %.300s", raw)
		}
		return "", m.Result.Turn.ID, m.Result.Position, len(raw)
	}
	postGet := func(id string) (int, []byte) {
		t.Helper()
		return agent.do("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "turn/get", "params": map[string]any{"turn_id": id}})
	}

	// Control: a turn of two project roots (its answer well under 512
	// KiB) is answered by REST, POST /rpc and the socket.
	st, b := agent.do("POST", "/v1/turns", startParams("small183", 2))
	var started struct {
		Position string `json:"position"`
	}
	if st != http.StatusCreated || json.Unmarshal(b, &started) != nil || started.Position == "" {
		t.Fatalf("control: start small183: %d %.300s", st, b)
	}
	if st, b := agent.do("GET", "/v1/turns/small183?after="+started.Position, nil); st != http.StatusOK || len(b) < 64<<10 {
		t.Fatalf("control: REST turn of two roots: %d %d bytes %.200s", st, len(b), b)
	}
	if st, b := postGet("small183"); st != http.StatusOK || !bytes.Contains(b, []byte(`"security_snapshot"`)) {
		t.Fatalf("control: POST /rpc turn/get of two roots: %d %.200s", st, b)
	}
	if code, id, _, n := socketCall("turn/get", map[string]any{"turn_id": "small183"}); code != "" || id != "small183" || n < 64<<10 {
		t.Fatalf("control: socket turn/get of two roots: error %q, %d bytes", code, n)
	}

	// A turn of eight roots, whose answer is past the 512 KiB share
	// (REST's start of it is started and refused its answer, server_busy):
	// started over the socket, whose answer was not held.
	code, _, _, startSize := socketCall("turn/start", startParams("big183", 8))
	if code != "server_busy" {
		t.Errorf("the socket answered turn/start of eight roots with %d bytes, past the credential's 512 KiB share, outside the body budget (error %q)", startSize, code)
	}
	// A later start's position covers big183's.
	st, b = agent.do("POST", "/v1/turns", startParams("small183b", 2))
	if st != http.StatusCreated || json.Unmarshal(b, &started) != nil || started.Position == "" {
		t.Fatalf("control: start small183b: %d %.300s", st, b)
	}
	st, b = agent.do("GET", "/v1/turns/big183?after="+started.Position, nil)
	if st != http.StatusServiceUnavailable || !bytes.Contains(b, []byte("server_busy")) {
		t.Fatalf("control: REST turn of eight roots past a 512 KiB share: %d %d bytes %.200s, want 503 server_busy", st, len(b), b)
	}
	if st, b := postGet("big183"); st != http.StatusServiceUnavailable || !bytes.Contains(b, []byte("server_busy")) {
		t.Fatalf("control: POST /rpc turn/get of eight roots: %d %d bytes %.200s, want 503 server_busy", st, len(b), b)
	}
	code, _, _, n := socketCall("turn/get", map[string]any{"turn_id": "big183"})
	if code != "server_busy" {
		t.Errorf("the socket answered turn/get with %d bytes (and turn/start with %d), past the credential's 512 KiB share of a 1 MiB "+
			"--max-body-memory, outside the body budget, which REST and POST /rpc refuse server_busy; error code %q", n, startSize, code)
	}
	// The same read as a batch of one call over POST /rpc: rpcBatch gives
	// the answer that takes it past the budget without holding it (meant
	// for a call that ran, here a read), and writes the batch with
	// w.Write, outside writeJSON's hold.
	st, b = agent.do("POST", "/rpc", []map[string]any{{"jsonrpc": "2.0", "id": 1, "method": "turn/get", "params": map[string]any{"turn_id": "big183"}}})
	if st != http.StatusOK || !bytes.Contains(b, []byte("server_busy")) {
		t.Errorf("POST /rpc answered a batch of one turn/get with %d bytes (status %d), past the credential's 512 KiB share, outside the body budget; "+
			"the same call alone is refused server_busy", len(b), st)
	}
}

package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// referenceTurnStart is the reference gateway's turn/start request
// (REFERENCE §12), with every TurnStartParams field, for workspace ws.
func referenceTurnStart(t testing.TB, ws string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "rpc", "turn_start_reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal(bytes.ReplaceAll(raw, []byte("@WORKSPACE@"), []byte(ws)), &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// TestRPCReferenceTurnStart: the reference's full turn/start is accepted;
// input becomes the turn's prompt in the timeline, the rest is kept in the
// turn-start event and decides nothing; a field neither the reference nor
// turnstile defines is invalid params naming it, and appends nothing.
func TestRPCReferenceTurnStart(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := StartServer(t, "")
	events := s.subscribe("turn_id=turn-ref-1", "")
	req := referenceTurnStart(t, ws)
	a := s.rpc(req)
	if a.Error != nil || string(a.ID) != `"req-1"` {
		t.Fatalf("reference turn/start: %+v %s", a.Error, a.Result)
	}
	var tr turnAnswer
	if err := json.Unmarshal(a.Result, &tr); err != nil {
		t.Fatal(err)
	}
	// The profile is permission_profile's; sandbox_policy and mode are kept, not enforced.
	if tr.Turn.ID != "turn-ref-1" || tr.Turn.Profile.Mode != "supervised" || tr.SecuritySnapshot.Sandbox.Mode != "read_only" {
		t.Fatalf("turn: %+v", tr)
	}
	evs, _ := s.events("turn-ref-1")
	var started struct {
		Input  []map[string]any           `json:"input"`
		Client map[string]json.RawMessage `json:"client"`
	}
	if err := json.Unmarshal(evs[0].Data, &started); err != nil {
		t.Fatal(err)
	}
	if len(started.Input) != 1 || started.Input[0]["text"] != "Rename the config loader and update its callers" {
		t.Errorf("input in turn.started: %+v", started.Input)
	}
	var kept []string
	for k := range started.Client {
		kept = append(kept, k)
	}
	slices.Sort(kept)
	if want := []string{"capabilities", "cli_runtime_options", "mode", "model", "model_provider", "reasoning", "sandbox_policy"}; !slices.Equal(kept, want) {
		t.Errorf("kept in turn.started: %q, want %q", kept, want)
	}
	if string(started.Client["reasoning"]) != `{"effort":"medium"}` {
		t.Errorf("reasoning kept as %s", started.Client["reasoning"])
	}
	if tl := s.timelineKinds("turn-ref-1"); len(tl) == 0 || tl[0] != "prompt: Prompt" {
		t.Errorf("timeline: %q", tl)
	}
	n := events.NextOf("turn/started")
	if in, _ := n.Params["input"].([]any); len(in) != 1 {
		t.Errorf("turn/started carries no input: %+v", n.Params)
	}
	// The same request again is the same turn; another input is a conflict.
	if a := s.rpc(req); a.Error != nil {
		t.Fatalf("repeat: %+v", a.Error)
	}
	params := req["params"].(map[string]any)
	params["input"] = []any{map[string]any{"type": "text", "text": "something else"}}
	if a := s.rpc(req); a.Error == nil || a.Error.Data.Code != "turn_exists" {
		t.Fatalf("another input under the same turn id: %+v %s", a.Error, a.Result)
	}

	// Strict: an unknown field, a malformed input.
	for field, value := range map[string]any{"temperature": 0.2, "inputs": []any{}} {
		bad := referenceTurnStart(t, ws)
		p := bad["params"].(map[string]any)
		p["turn_id"], p[field] = "turn-ref-bad", value
		bad["id"] = "x-7"
		a := s.rpc(bad)
		if a.Error == nil || a.Error.Code != -32602 || a.Error.Data.Details["field"] != field {
			t.Errorf("unknown field %s: %+v", field, a.Error)
		}
	}
	for _, input := range []any{"just a string", []any{map[string]any{"text": "no type"}}} {
		bad := referenceTurnStart(t, ws)
		p := bad["params"].(map[string]any)
		p["turn_id"], p["input"] = "turn-ref-bad", input
		a := s.rpc(bad)
		if a.Error == nil || a.Error.Code != -32602 || !strings.HasPrefix(str(a.Error.Data.Details["field"]), "input") {
			t.Errorf("input %v: %+v", input, a.Error)
		}
	}
	if status, _ := s.Request("GET", "/v1/turns/turn-ref-bad", nil); status != http.StatusNotFound {
		t.Errorf("a refused turn/start left a turn (%d)", status)
	}
	// REST stays turnstile's own shape: input is not one of its fields.
	status, body := s.Request("POST", "/v1/turns", map[string]any{"turn_id": "rest-1", "workspace_id": "w", "thread_id": "t", "input": []any{}})
	wantError(t, status, body, http.StatusBadRequest, "unknown_field")
}

// TestRPCReferenceNotifications: a turn's life produces the reference's
// notification names on the event stream, each a JSON-RPC notification.
func TestRPCReferenceNotifications(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := StartServer(t, "")
	events := s.subscribe("", "")
	s.call("turn/start", map[string]any{"turn_id": "n1", "thread_id": "th", "workspace_id": "w", "workspace_root": ws,
		"permission_profile": map[string]any{"mode": "supervised"}, "input": []any{map[string]any{"type": "text", "text": "hi"}}}, nil)
	d := s.decide("n1", "c1", "exec_command", map[string]any{"cmd": []string{"go", "version"}})
	s.call("turn/permission/request/respond", map[string]any{"request_id": d.Request.RequestID, "resolution": "deny"}, nil)
	s.call("turn/cancel", map[string]any{"turn_id": "n1"}, nil)
	s.startTurn("n2", "w", "supervised", ws)
	s.JSON("POST", "/v1/turns/n2/complete", nil, http.StatusOK, nil)
	s.startTurn("n3", "w", "supervised", ws)
	s.JSON("POST", "/v1/turns/n3/fail", map[string]any{"reason": "boom"}, http.StatusOK, nil)
	var seen []string
	for len(seen) == 0 || seen[len(seen)-1] != "turn/failed" {
		e := events.Next()
		var msg struct {
			JSONRPC string         `json:"jsonrpc"`
			Method  string         `json:"method"`
			ID      any            `json:"id"`
			Params  map[string]any `json:"params"`
		}
		if err := json.Unmarshal([]byte(e.Data), &msg); err != nil || msg.JSONRPC != "2.0" || msg.Method != e.Event || msg.ID != nil || msg.Params["turn_id"] == nil {
			t.Fatalf("not a JSON-RPC notification: event %s data %s", e.Event, e.Data)
		}
		if !slices.Contains(seen, e.Event) {
			seen = append(seen, e.Event)
		}
	}
	for _, m := range []string{"turn/started", "turn/permission/audit", "turn/permission/request/opened", "turn/permission/request/resolved", "turn/interrupted", "turn/completed", "turn/failed"} {
		if !slices.Contains(seen, m) {
			t.Errorf("no %s notification (saw %q)", m, seen)
		}
	}
}

// dialRPC opens the JSON-RPC WebSocket with token (none when empty).
func dialRPC(t *testing.T, s *Server, token, query string) (*websocket.Conn, error) {
	t.Helper()
	cfg, err := websocket.NewConfig(strings.Replace(s.URL, "http://", "ws://", 1)+"/rpc"+query, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		cfg.Header.Set("Authorization", "Bearer "+token)
	}
	return websocket.DialConfig(cfg)
}

// TestRPCWebSocket: JSON-RPC over a WebSocket at /rpc, with the same auth:
// calls are answered, notifications arrive on the same socket.
func TestRPCWebSocket(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := StartServer(t, "")
	if c, err := dialRPC(t, s, "", ""); err == nil {
		c.Close()
		t.Fatal("a WebSocket without the token was accepted")
	}
	if c, err := dialRPC(t, s, "not-the-token-at-all", ""); err == nil {
		c.Close()
		t.Fatal("a WebSocket with a wrong token was accepted")
	}
	if status, body := s.Request("GET", "/rpc", nil); status != http.StatusUpgradeRequired || !strings.Contains(string(body), "upgrade_required") {
		t.Fatalf("GET /rpc without an upgrade: %d %s", status, body)
	}
	conn, err := dialRPC(t, s, s.Token, "?turn_id=ws1")
	if err != nil {
		t.Fatalf("dial with the token: %v", err)
	}
	defer conn.Close()
	msgs := make(chan map[string]any, 64)
	go func() {
		defer close(msgs)
		for {
			var m map[string]any
			if err := websocket.JSON.Receive(conn, &m); err != nil {
				return
			}
			msgs <- m
		}
	}()
	// next returns the first message, in arrival order, that want accepts
	// (answers and notifications interleave: a notification may come
	// before the answer to the call that caused it).
	var held []map[string]any
	next := func(want func(map[string]any) bool) map[string]any {
		t.Helper()
		for {
			for i, m := range held {
				if want(m) {
					held = append(held[:i], held[i+1:]...)
					return m
				}
			}
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatal("the socket closed")
				}
				held = append(held, m)
			case <-time.After(30 * time.Second):
				t.Fatalf("nothing within 30s; held %v", held)
			}
		}
	}
	method := func(name string) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["method"] == name }
	}
	send := func(v any) {
		if err := websocket.JSON.Send(conn, v); err != nil {
			t.Fatal(err)
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "turn/start", "params": map[string]any{"turn_id": "ws1", "thread_id": "th", "workspace_id": "w",
		"workspace_root": ws, "permission_profile": map[string]any{"mode": "supervised"}, "input": []any{map[string]any{"type": "text", "text": "over a socket"}}}})
	if r := next(func(m map[string]any) bool { return m["id"] == float64(1) }); r["error"] != nil {
		t.Fatalf("turn/start: %v", r)
	}
	next(method("turn/started"))
	d := s.decide("ws1", "c1", "exec_command", map[string]any{"cmd": []string{"go", "version"}})
	opened := next(method("turn/permission/request/opened"))
	if req := opened["params"].(map[string]any)["request"].(map[string]any); req["request_id"] != d.Request.RequestID {
		t.Fatalf("opened: %v", opened)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": "r2", "method": "turn/permission/request/respond", "params": map[string]any{"request_id": d.Request.RequestID, "resolution": "allow_once"}})
	if r := next(func(m map[string]any) bool { return m["id"] == "r2" }); r["error"] != nil {
		t.Fatalf("respond: %v", r)
	}
	if res := next(method("turn/permission/request/resolved")); res["params"].(map[string]any)["resolution"] != "allow_once" {
		t.Fatalf("resolved: %v", res)
	}
	// The same strictness as POST /rpc.
	send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": map[string]any{"turn_id": "ws2", "thread_id": "th", "workspace_id": "w", "temperature": 1}})
	r := next(func(m map[string]any) bool { return m["id"] == float64(3) })
	if e, _ := r["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
		t.Fatalf("unknown field over the socket: %v", r)
	}
	// The filter: another turn's notifications do not arrive.
	s.startTurn("other", "w", "supervised", ws)
	send(map[string]any{"jsonrpc": "2.0", "method": "turn/cancel", "params": map[string]any{"turn_id": "ws1"}}) // a notification: no answer
	end := next(method("turn/interrupted"))
	if end["params"].(map[string]any)["turn_id"] != "ws1" {
		t.Fatalf("after cancel: %v", end)
	}
	for _, m := range held {
		if p, _ := m["params"].(map[string]any); p != nil && p["turn_id"] != "ws1" {
			t.Errorf("a notification of another turn came through the filter: %v", m)
		}
	}
}

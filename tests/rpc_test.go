package tests

import (
	"encoding/json"
	"net/http"
	"testing"
)

// rpcAnswer is one JSON-RPC 2.0 response.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code    string         `json:"code"`
			Status  int            `json:"status"`
			Details map[string]any `json:"details"`
		} `json:"data"`
	} `json:"error"`
}

// rpc posts body to /rpc and decodes one response.
func (s *Server) rpc(body any) rpcAnswer {
	s.t.Helper()
	status, raw := s.Request("POST", "/rpc", body)
	if status != http.StatusOK {
		s.t.Fatalf("rpc %v: HTTP %d %s", body, status, raw)
	}
	var a rpcAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		s.t.Fatalf("rpc answer %s: %v", raw, err)
	}
	if a.JSONRPC != "2.0" || (a.Error == nil) == (a.Result == nil) {
		s.t.Fatalf("rpc answer is not one JSON-RPC 2.0 response: %s", raw)
	}
	return a
}

// call makes a call with id 1 and decodes its result into out.
func (s *Server) call(method string, params, out any) {
	s.t.Helper()
	a := s.rpc(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if a.Error != nil {
		s.t.Fatalf("%s: error %+v", method, a.Error)
	}
	if out != nil {
		if err := json.Unmarshal(a.Result, out); err != nil {
			s.t.Fatal(err)
		}
	}
}

// callError makes a call that must fail with code.
func (s *Server) callError(method string, params any, code int) rpcAnswer {
	s.t.Helper()
	a := s.rpc(map[string]any{"jsonrpc": "2.0", "id": "x-7", "method": method, "params": params})
	if a.Error == nil || a.Error.Code != code || string(a.ID) != `"x-7"` {
		s.t.Fatalf("%s %v: answered %+v (result %s), want error %d for id x-7", method, params, a.Error, a.Result, code)
	}
	return a
}

// TestRPCApprovalFlow runs the approval flow over JSON-RPC.
func TestRPCApprovalFlow(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	start := map[string]any{"turn_id": "rpc1", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}
	var tr turnAnswer
	s.call("turn/start", start, &tr)
	if tr.Turn.ID != "rpc1" || tr.Turn.Profile.Mode != "supervised" || tr.Turn.Version != 2 {
		t.Fatalf("turn/start: %+v", tr.Turn)
	}
	s.call("turn/start", start, &tr)
	if tr.Turn.Version != 2 {
		t.Fatalf("repeated turn/start: %+v", tr.Turn)
	}
	start["thread_id"] = "other"
	if a := s.callError("turn/start", start, -32000); a.Error.Data.Code != "turn_exists" || a.Error.Data.Status != 409 {
		t.Fatalf("conflicting turn/start: %+v", a.Error)
	}

	ask := s.decide("rpc1", "c1", "exec_command", map[string]any{"cmd": "make test"})
	s.call("turn/get", map[string]any{"turn_id": "rpc1"}, &tr)
	if tr.Turn.Status != "awaiting_approval" || tr.Turn.PendingApprovals != 1 || tr.SecuritySnapshot.Sandbox.Mode != "read_only" {
		t.Fatalf("turn/get while asking: %+v", tr)
	}
	var items struct {
		TurnID string `json:"turn_id"`
		Items  []struct {
			Kind      string `json:"kind"`
			RequestID string `json:"request_id"`
		} `json:"items"`
	}
	s.call("turn/items", map[string]any{"turn_id": "rpc1"}, &items)
	if items.TurnID != "rpc1" || len(items.Items) < 2 || items.Items[0].Kind != "header" || items.Items[len(items.Items)-1].Kind != "approval_requested" ||
		items.Items[len(items.Items)-1].RequestID != ask.Request.RequestID {
		t.Fatalf("turn/items: %+v", items)
	}

	before := s.footprint("rpc1")
	a := s.callError("turn/permission/request/respond", map[string]any{"request_id": ask.Request.RequestID, "resolution": "maybe"}, -32602)
	if a.Error.Data.Code != "invalid_enum" || a.Error.Data.Details["value"] != "maybe" {
		t.Fatalf("bad resolution: %+v", a.Error)
	}
	s.callError("turn/permission/request/respond", map[string]any{"request_id": ask.Request.RequestID, "resolution": "expired"}, -32602)
	s.callError("turn/permission/request/respond", map[string]any{"resolution": "deny"}, -32602)
	if a := s.callError("turn/permission/request/respond", map[string]any{"request_id": "nope", "resolution": "deny"}, -32000); a.Error.Data.Status != 404 {
		t.Fatalf("unknown request: %+v", a.Error)
	}
	if after := s.footprint("rpc1"); after != before {
		t.Fatalf("refused calls changed the turn: %v → %v", before, after)
	}

	var resp struct {
		RequestID  string `json:"request_id"`
		Resolution string `json:"resolution"`
		Replayed   bool   `json:"replayed"`
	}
	s.call("turn/permission/request/respond", map[string]any{"request_id": ask.Request.RequestID, "resolution": "allow_once"}, &resp)
	if resp.RequestID != ask.Request.RequestID || resp.Resolution != "allow_once" || resp.Replayed {
		t.Fatalf("respond: %+v", resp)
	}
	s.call("turn/permission/request/respond", map[string]any{"request_id": ask.Request.RequestID, "resolution": "allow_once"}, &resp)
	if !resp.Replayed {
		t.Fatalf("repeated respond: %+v", resp)
	}
	a = s.callError("turn/permission/request/respond", map[string]any{"request_id": ask.Request.RequestID, "resolution": "deny"}, -32000)
	if a.Error.Data.Code != "already_resolved" || a.Error.Data.Status != 409 || a.Error.Data.Details["resolution"] != "allow_once" {
		t.Fatalf("conflicting respond: %+v", a.Error)
	}
	// allow_once fills no cache.
	if d := s.decide("rpc1", "c2", "exec_command", map[string]any{"cmd": "make test"}); d.Decision != "ask" || d.Cached {
		t.Fatalf("same scope after allow_once: %+v", d)
	}

	s.call("turn/cancel", map[string]any{"turn_id": "rpc1", "reason": "user stop"}, &tr)
	if tr.Turn.Status != "interrupted" || tr.Turn.PendingApprovals != 0 {
		t.Fatalf("turn/cancel: %+v", tr.Turn)
	}
	if a := s.callError("turn/cancel", map[string]any{"turn_id": "rpc1"}, -32000); a.Error.Data.Code != "illegal_transition" || a.Error.Data.Status != 422 {
		t.Fatalf("cancel twice: %+v", a.Error)
	}
}

// TestRPCProtocol checks the standard errors, batches and notifications.
func TestRPCProtocol(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("p1", "ws", "full_access", root)
	s.startTurn("n1", "ws", "full_access", root)

	for _, tc := range []struct {
		name string
		body string
		code int
	}{
		{"parse error", `{"jsonrpc":"2.0","method":`, -32700},
		{"not JSON at all", `hello`, -32700},
		{"wrong version", `{"jsonrpc":"1.0","method":"turn/get","id":1}`, -32600},
		{"no method", `{"jsonrpc":"2.0","id":1}`, -32600},
		{"not an object", `42`, -32600},
		{"empty batch", `[]`, -32600},
	} {
		a := s.rpc(tc.body)
		if a.Error == nil || a.Error.Code != tc.code || string(a.ID) != "null" {
			t.Errorf("%s: %+v id %s, want %d with id null", tc.name, a.Error, a.ID, tc.code)
		}
	}
	if a := s.callError("turn/explode", nil, -32601); a.Error.Message == "" {
		t.Fatalf("unknown method: %+v", a.Error)
	}
	s.callError("turn/get", map[string]any{}, -32602)
	s.callError("turn/get", map[string]any{"turn_id": 5}, -32602)
	s.callError("turn/get", map[string]any{"turn_id": "p1", "extra": true}, -32602)
	s.callError("turn/start", map[string]any{"turn_id": "p2", "permission_profile": map[string]any{"mode": "yolo"}}, -32602)
	if a := s.callError("turn/get", map[string]any{"turn_id": "missing"}, -32000); a.Error.Data.Status != 404 || a.Error.Data.Code != "not_found" {
		t.Fatalf("unknown turn: %+v", a.Error)
	}

	// A batch: a call, a notification (no answer), an unknown method and an
	// invalid member; answers carry their ids.
	status, raw := s.Request("POST", "/rpc", `[
		{"jsonrpc":"2.0","id":1,"method":"turn/get","params":{"turn_id":"p1"}},
		{"jsonrpc":"2.0","method":"turn/get","params":{"turn_id":"p1"}},
		{"jsonrpc":"2.0","id":"three","method":"nope"},
		7
	]`)
	var batch []rpcAnswer
	if status != http.StatusOK || json.Unmarshal(raw, &batch) != nil || len(batch) != 3 {
		t.Fatalf("batch: %d %s", status, raw)
	}
	if string(batch[0].ID) != "1" || batch[0].Error != nil || batch[0].Result == nil {
		t.Errorf("batch[0]: %s", raw)
	}
	if string(batch[1].ID) != `"three"` || batch[1].Error == nil || batch[1].Error.Code != -32601 {
		t.Errorf("batch[1]: %s", raw)
	}
	if string(batch[2].ID) != "null" || batch[2].Error == nil || batch[2].Error.Code != -32600 {
		t.Errorf("batch[2]: %s", raw)
	}

	// A notification gets no response, but it is carried out.
	before := s.footprint("n1")
	status, raw = s.Request("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "method": "turn/cancel", "params": map[string]any{"turn_id": "n1"}})
	if status != http.StatusNoContent || len(raw) != 0 {
		t.Fatalf("notification answered %d %q", status, raw)
	}
	if tr := s.turn("n1"); tr.Turn.Status != "interrupted" || tr.Turn.Version <= before[0] {
		t.Fatalf("notified turn/cancel was not carried out: %+v", tr.Turn)
	}
	// A failing notification is silent too, and a batch of notifications
	// answers nothing.
	status, raw = s.Request("POST", "/rpc", `[{"jsonrpc":"2.0","method":"nope"},{"jsonrpc":"2.0","method":"turn/get","params":{}}]`)
	if status != http.StatusNoContent || len(raw) != 0 {
		t.Fatalf("batch of notifications answered %d %q", status, raw)
	}
}

package tests

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
)

// TestAuthOnEveryEndpoint iterates over the paths of /openapi.json: each
// operation but /healthz and /v1/server/identity answers 401 in the error shape without a token,
// with a wrong one, and with a malformed header.
func TestAuthOnEveryEndpoint(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	s.JSON("GET", "/openapi.json", nil, http.StatusOK, &doc)
	if len(doc.Paths) < 15 {
		t.Fatalf("openapi.json lists only %d paths", len(doc.Paths))
	}
	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	checked := 0
	for _, p := range paths {
		concrete := strings.NewReplacer("{turn_id}", "some-turn", "{request_id}", "some-request").Replace(p)
		for method := range doc.Paths[p] {
			method = strings.ToUpper(method)
			if p == "/healthz" {
				if status, _ := s.Request(method, concrete, nil, "Authorization", ""); status != http.StatusOK {
					t.Errorf("%s %s without a token: %d, want 200", method, p, status)
				}
				continue
			}
			if p == "/v1/server/identity" {
				// Asked before a client sends a credential.
				if status, _ := s.Request(method, concrete+"?nonce="+strings.Repeat("ab", 32), nil, "Authorization", ""); status != http.StatusOK {
					t.Errorf("%s %s without a token: %d, want 200", method, p, status)
				}
				continue
			}
			for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + s.Token, "Bearer", "Bearer " + s.Token + "x", s.Token} {
				req, _ := http.NewRequest(method, s.URL+concrete, strings.NewReader(`{}`))
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var body [4096]byte
				n, _ := resp.Body.Read(body[:])
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s %s with Authorization %q: %d, want 401", method, p, auth, resp.StatusCode)
					continue
				}
				wantError(t, resp.StatusCode, body[:n], http.StatusUnauthorized, "unauthorized")
				if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s %s: WWW-Authenticate %q", method, p, resp.Header.Get("WWW-Authenticate"))
				}
				checked++
			}
		}
	}
	if checked < 6*19 {
		t.Fatalf("checked only %d requests", checked)
	}
}

// TestBadInputChangesNothing sends each kind of bad input and checks the
// status, the error code and shape, and that the turn's version and event
// count are unchanged.
func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("bad", "ws", "auto_accept_edits", root)
	ask := s.decide("bad", "asked", "exec_command", map[string]any{"cmd": "make"})
	if ask.Request == nil {
		t.Fatalf("no request: %+v", ask)
	}
	reqID := ask.Request.RequestID
	big := `{"tool_call_id":"big","tool_name":"read_file","arguments":{"path":"a.txt","pad":"` + strings.Repeat("x", 1<<20) + `"}}`

	cases := []struct {
		name, method, path string
		body               any
		status             int
		code               string
		details            map[string]any
	}{
		{"malformed JSON", "POST", "/v1/turns/bad/decisions", `{"tool_call_id": "x", "tool_name":`, 400, "invalid_json", nil},
		{"not an object", "POST", "/v1/turns/bad/decisions", `[1,2]`, 400, "invalid_type", nil},
		{"trailing data", "POST", "/v1/turns/bad/decisions", `{"tool_call_id":"t","tool_name":"read_file","arguments":{"path":"a.txt"}} {}`, 400, "invalid_json", nil},
		{"empty body", "POST", "/v1/turns/bad/decisions", ``, 400, "invalid_json", nil},
		{"wrong type", "POST", "/v1/turns/bad/decisions", `{"tool_call_id": 7, "tool_name":"read_file"}`, 400, "invalid_type", map[string]any{"field": "tool_call_id"}},
		{"unknown field", "POST", "/v1/turns/bad/decisions", `{"tool_call_id":"u","tool_name":"read_file","bogus":1}`, 400, "unknown_field", map[string]any{"field": "bogus"}},
		{"missing tool_call_id", "POST", "/v1/turns/bad/decisions", `{"tool_name":"read_file"}`, 400, "invalid_field", map[string]any{"field": "tool_call_id"}},
		{"missing tool_name", "POST", "/v1/turns/bad/decisions", `{"tool_call_id":"n"}`, 400, "invalid_field", map[string]any{"field": "tool_name"}},
		{"bad arguments", "POST", "/v1/turns/bad/decisions", `{"tool_call_id":"n","tool_name":"read_file","arguments":{}}`, 400, "invalid_field", map[string]any{"field": "arguments.path"}},
		{"mode yolo (change)", "POST", "/v1/turns/bad/permissions", `{"permission_profile":{"mode":"yolo"}}`, 400, "invalid_enum", map[string]any{"value": "yolo"}},
		{"resolution maybe", "POST", "/v1/approvals/" + reqID + "/respond", `{"resolution":"maybe"}`, 400, "invalid_enum", map[string]any{"field": "resolution", "value": "maybe"}},
		{"resolution missing", "POST", "/v1/approvals/" + reqID + "/respond", `{}`, 400, "invalid_field", map[string]any{"field": "resolution"}},
		{"respond unknown field", "POST", "/v1/approvals/" + reqID + "/respond", `{"resolution":"deny","why":"x"}`, 400, "unknown_field", map[string]any{"field": "why"}},
		{"bad wait", "GET", "/v1/approvals/" + reqID + "?wait=forever", nil, 400, "invalid_field", map[string]any{"field": "wait"}},
		{"bad status filter", "GET", "/v1/approvals?status=open", nil, 400, "invalid_enum", map[string]any{"field": "status", "value": "open"}},
		{"unknown request", "POST", "/v1/approvals/no-such-request/respond", `{"resolution":"deny"}`, 404, "not_found", map[string]any{"kind": "request"}},
		{"unknown request (get)", "GET", "/v1/approvals/no-such-request", nil, 404, "not_found", nil},
		{"unknown turn (decide)", "POST", "/v1/turns/no-such-turn/decisions", `{"tool_call_id":"x","tool_name":"task_list"}`, 404, "not_found", map[string]any{"kind": "turn", "id": "no-such-turn"}},
		{"unknown turn (get)", "GET", "/v1/turns/no-such-turn", nil, 404, "not_found", nil},
		{"unknown turn (complete)", "POST", "/v1/turns/no-such-turn/complete", nil, 404, "not_found", nil},
		{"body over 1 MiB", "POST", "/v1/turns/bad/decisions", big, 413, "body_too_large", map[string]any{"limit_bytes": float64(1 << 20)}},
		{"unknown route", "GET", "/v1/nothing-here", nil, 404, "not_found", nil},
		{"wrong method", "DELETE", "/v1/turns/bad", nil, 405, "method_not_allowed", nil},
	}
	for _, tc := range cases {
		before := s.footprint("bad")
		status, body := s.Request(tc.method, tc.path, tc.body)
		e := wantError(t, status, body, tc.status, tc.code)
		for k, v := range tc.details {
			if e.Details[k] != v {
				t.Errorf("%s: details[%s] = %v, want %v (%s)", tc.name, k, e.Details[k], v, body)
			}
		}
		if after := s.footprint("bad"); after != before {
			t.Errorf("%s: the turn changed: %v → %v", tc.name, before, after)
		}
	}
	if a := s.turn("bad"); a.Turn.Status != "awaiting_approval" || a.Turn.PendingApprovals != 1 {
		t.Fatalf("turn after the bad inputs: %+v", a.Turn)
	}

	// An unknown turn stays unknown: nothing was created for it.
	for _, p := range []string{"/v1/turns/no-such-turn", "/v1/turns/no-such-turn/events"} {
		status, body := s.Request("GET", p, nil)
		wantError(t, status, body, http.StatusNotFound, "not_found")
	}

	// A new turn with a bad mode, a bad id, or a task cap but no parent is
	// not created.
	for _, tc := range []struct {
		name   string
		body   map[string]any
		code   string
		field  string
		turnID string
	}{
		{"mode yolo", map[string]any{"turn_id": "yolo", "workspace_id": "w", "permission_profile": map[string]any{"mode": "yolo"}}, "invalid_enum", "", "yolo"},
		{"bad turn id", map[string]any{"turn_id": "no spaces!", "workspace_id": "w"}, "invalid_field", "turn_id", ""},
		{"cap without parent", map[string]any{"turn_id": "orphan", "workspace_id": "w", "task_cap": map[string]any{"mode": "supervised"}}, "invalid_field", "task_cap", "orphan"},
		{"unknown parent", map[string]any{"turn_id": "lost", "workspace_id": "w", "parent_turn_id": "no-such-parent"}, "not_found", "", "lost"},
	} {
		status, body := s.Request("POST", "/v1/turns", tc.body)
		wantStatus := http.StatusBadRequest
		if tc.code == "not_found" {
			wantStatus = http.StatusNotFound
		}
		e := wantError(t, status, body, wantStatus, tc.code)
		if tc.name == "mode yolo" && (e.Details["value"] != "yolo" || !strings.Contains(str(e.Details["field"]), "mode")) {
			t.Errorf("mode yolo: details %v", e.Details)
		}
		if tc.field != "" && e.Details["field"] != tc.field {
			t.Errorf("%s: details %v, want field %s", tc.name, e.Details, tc.field)
		}
		if tc.turnID != "" {
			status, body := s.Request("GET", "/v1/turns/"+tc.turnID+"/events", nil)
			wantError(t, status, body, http.StatusNotFound, "not_found")
		}
	}
}

// TestTerminalTurnAndCaps checks that a completed turn refuses decisions
// (422) and that a child's cap broader than its parent is refused (400),
// each appending nothing.
func TestTerminalTurnAndCaps(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)

	s.startTurn("ended", "ws", "full_access", root)
	s.JSON("POST", "/v1/turns/ended/complete", nil, http.StatusOK, nil)
	before := s.footprint("ended")
	status, body := s.Request("POST", "/v1/turns/ended/decisions", map[string]any{"tool_call_id": "late", "tool_name": "task_list"})
	e := wantError(t, status, body, http.StatusUnprocessableEntity, "illegal_transition")
	if e.Details["turn_id"] != "ended" || e.Details["state"] != "completed" {
		t.Errorf("illegal transition details %v", e.Details)
	}
	for _, p := range []string{"complete", "interrupt", "fail"} {
		status, body = s.Request("POST", "/v1/turns/ended/"+p, nil)
		wantError(t, status, body, http.StatusUnprocessableEntity, "illegal_transition")
	}
	status, body = s.Request("POST", "/v1/turns/ended/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}})
	wantError(t, status, body, http.StatusUnprocessableEntity, "illegal_transition")
	if after := s.footprint("ended"); after != before {
		t.Fatalf("the completed turn changed: %v → %v", before, after)
	}

	s.startTurn("parent", "ws", "supervised", root)
	before = s.footprint("parent")
	status, body = s.Request("POST", "/v1/turns", map[string]any{"turn_id": "child", "workspace_id": "ws", "parent_turn_id": "parent",
		"task_cap": map[string]any{"mode": "full_access", "sandbox_mode": "unrestricted"}})
	e = wantError(t, status, body, http.StatusBadRequest, "cap_exceeds_parent")
	dims, _ := e.Details["dimensions"].([]any)
	if len(dims) != 2 || dims[0] != "profile" || dims[1] != "sandbox mode" || !strings.Contains(e.Message, "profile") {
		t.Errorf("cap_exceeds_parent: %v %q", e.Details, e.Message)
	}
	status, body = s.Request("GET", "/v1/turns/child/events", nil)
	wantError(t, status, body, http.StatusNotFound, "not_found")
	if after := s.footprint("parent"); after != before {
		t.Fatalf("the parent changed: %v → %v", before, after)
	}

	// A cap within the parent makes a child bounded by both.
	var child turnAnswer
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "child", "workspace_id": "ws", "parent_turn_id": "parent",
		"permission_profile": map[string]any{"mode": "full_access"}, "task_cap": map[string]any{"mode": "supervised"}}, http.StatusCreated, &child)
	if child.Turn.ParentTurnID != "parent" || child.Turn.Profile.Mode != "supervised" || child.Turn.Profile.Source != "task_permission_cap" ||
		child.SecuritySnapshot.Sandbox.Mode != "read_only" {
		t.Fatalf("child %+v sandbox %q", child.Turn, child.SecuritySnapshot.Sandbox.Mode)
	}
	if d := s.decide("child", "c1", "exec_command", map[string]any{"cmd": "ls"}); d.Decision != "ask" {
		t.Fatalf("child exec: %+v", d)
	}
	// A child of an ended parent cannot start.
	s.JSON("POST", "/v1/turns/parent/complete", nil, http.StatusOK, nil)
	status, body = s.Request("POST", "/v1/turns", map[string]any{"turn_id": "late-child", "workspace_id": "ws", "parent_turn_id": "parent"})
	wantError(t, status, body, http.StatusUnprocessableEntity, "illegal_transition")
}

// TestErrorDetailsAlwaysPresent checks that every error carries the three
// keys of the one error shape, details included (an empty object when
// there is nothing to add).
func TestErrorDetailsAlwaysPresent(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("d", "ws", "full_access", root)
	s.decide("d", "c1", "task_list", nil)
	var missing []string
	for _, tc := range []struct {
		method, path string
		body         any
		header       []string
	}{
		{"GET", "/v1/turns", nil, []string{"Authorization", ""}},
		{"POST", "/v1/turns/d/decisions", `{"tool_call_id":`, nil},
		{"POST", "/v1/turns/d/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "ls"}}, nil},
		{"POST", "/v1/turns", map[string]any{"turn_id": "d", "workspace_id": "other", "workspace_root": root}, nil},
		{"GET", "/v1/nowhere", nil, nil},
		{"PUT", "/v1/turns", nil, nil},
		{"POST", "/v1/turns/d/decisions", map[string]any{"tool_call_id": "x", "tool_name": "read_file", "bogus": 1}, nil},
	} {
		status, body := s.Request(tc.method, tc.path, tc.body, tc.header...)
		var e struct {
			Error map[string]json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil || status < 400 {
			t.Fatalf("%s %s: %d %s", tc.method, tc.path, status, body)
		}
		if d, ok := e.Error["details"]; !ok || len(d) == 0 || d[0] != '{' {
			missing = append(missing, string(e.Error["code"]))
		}
	}
	if len(missing) > 0 {
		t.Fatalf("regression: api/errors.go tagged Details `json:\"details,omitempty\"`, so these errors have no \"details\" key, unlike the one error shape {\"error\":{\"code\",\"message\",\"details\"}}: %s",
			strings.Join(missing, ", "))
	}
}

// TestBodyLimitBoundary checks that a body of exactly 1 MiB is read and one
// byte more is refused with 413.
func TestBodyLimitBoundary(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("lim", "ws", "full_access", root)
	body := func(callID string, size int) string {
		b := `{"tool_call_id":"` + callID + `","tool_name":"task_list"}`
		return b + strings.Repeat(" ", size-len(b))
	}
	var d decisionAnswer
	s.JSON("POST", "/v1/turns/lim/decisions", body("exact", 1<<20), http.StatusOK, &d)
	if d.Decision != "allow" || d.ToolCallID != "exact" {
		t.Fatalf("1 MiB body: %+v", d)
	}
	before := s.footprint("lim")
	status, raw := s.Request("POST", "/v1/turns/lim/decisions", body("over", 1<<20+1))
	wantError(t, status, raw, http.StatusRequestEntityTooLarge, "body_too_large")
	status, raw = s.Request("POST", "/rpc", `{"jsonrpc":"2.0","id":1,"method":"turn/get","params":{"turn_id":"lim"}}`+strings.Repeat(" ", 1<<20))
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("rpc over 1 MiB: %d %s", status, raw)
	}
	if after := s.footprint("lim"); after != before {
		t.Fatalf("refused bodies changed the turn: %v → %v", before, after)
	}
}

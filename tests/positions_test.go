package tests

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

// TestEveryCommandAnswersWithItsLastPosition: against the built binary,
// every command's answer — start, decide, exec (that ran), respond, change
// the profile, end, JSON-RPC turn/start and turn/cancel, the http hook
// (Turnstile-Position header) — carries the position of the last event it
// appended, which is the last event of the turn's history in the store at
// that moment (so a client's ?after= with it is exactly read-your-writes),
// and each is later than the one before. The control: a replayed decision
// (same tool call id) appends nothing and answers the turn's current last
// position, not a new one.
func TestEveryCommandAnswersWithItsLastPosition(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	var last [2]uint64
	// check: the answer's position is later than the previous one and is
	// the turn's last event in the store.
	check := func(what, turnID, pos string) {
		t.Helper()
		c, p, ok := parsePos(pos)
		if !ok {
			t.Fatalf("%s: no position in the answer (%q)", what, pos)
		}
		if c < last[0] || (c == last[0] && p <= last[1]) {
			t.Fatalf("%s: position %s is not after the previous command's %d-%d", what, pos, last[0], last[1])
		}
		last = [2]uint64{c, p}
		ex, err := s.send(s.http, "GET", "/v1/turns/"+url.PathEscape(turnID)+"/events?limit=10000", nil)
		if err != nil || ex.status != http.StatusOK {
			t.Fatalf("%s: the turn's history: %v %v", what, err, ex)
		}
		var page struct {
			Events []struct {
				Position string `json:"position"`
			} `json:"events"`
		}
		if err := json.Unmarshal(ex.data, &page); err != nil || len(page.Events) == 0 {
			t.Fatalf("%s: the turn's history: %s", what, ex.data)
		}
		if got := page.Events[len(page.Events)-1].Position; got != pos {
			t.Fatalf("%s: answered position %s, but the turn's last event is at %s", what, pos, got)
		}
	}
	type answer struct {
		Position string `json:"position"`
		Decision string `json:"decision"`
		Ran      bool   `json:"ran"`
		Request  *struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
		Result struct {
			Position string `json:"position"`
		} `json:"result"`
	}
	var a answer
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p1", "workspace_id": "ws-cc", "workspace_root": ws,
		"permission_profile": map[string]string{"mode": "supervised"}}, http.StatusCreated, &a)
	check("start", "p1", a.Position)
	s.JSON("POST", "/v1/turns/p1/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command",
		"arguments": map[string]any{"cmd": []string{"true"}}}, http.StatusOK, &a)
	if a.Decision != "ask" || a.Request == nil {
		t.Fatalf("decide: want ask, got %+v", a)
	}
	check("decide", "p1", a.Position)
	req, decided := a.Request.RequestID, a.Position
	a = answer{}
	s.JSON("POST", "/v1/turns/p1/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command",
		"arguments": map[string]any{"cmd": []string{"true"}}}, http.StatusOK, &a)
	if a.Position != decided {
		t.Fatalf("a replayed decision answered position %s, want the turn's last, %s", a.Position, decided)
	}
	s.JSON("POST", "/v1/approvals/"+req+"/respond", map[string]any{"resolution": "allow_for_turn"}, http.StatusOK, &a)
	check("respond", "p1", a.Position)
	s.JSON("POST", "/v1/turns/p1/permissions", map[string]any{"permission_profile": map[string]string{"mode": "full_access"}}, http.StatusOK, &a)
	check("change permissions", "p1", a.Position)
	a = answer{}
	s.JSON("POST", "/v1/turns/p1/exec", map[string]any{"tool_call_id": "x1", "argv": []string{"true"}}, http.StatusOK, &a)
	if !a.Ran {
		t.Fatalf("exec did not run: %+v", a)
	}
	check("exec", "p1", a.Position)
	s.JSON("POST", "/v1/turns/p1/complete", nil, http.StatusOK, &a)
	check("complete", "p1", a.Position)

	s.JSON("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "turn/start",
		"params": map[string]any{"turn_id": "p2", "workspace_id": "ws-cc", "workspace_root": ws}}, http.StatusOK, &a)
	check("rpc turn/start", "p2", a.Result.Position)
	s.JSON("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "turn/cancel", "params": map[string]any{"turn_id": "p2"}}, http.StatusOK, &a)
	check("rpc turn/cancel", "p2", a.Result.Position)

	ex, err := s.send(s.http, "POST", "/v1/hooks/claude-code", ccPayload(t, "pre_read", "sess-pos", ws))
	if err != nil || ex.status != http.StatusOK {
		t.Fatalf("hook: %v %+v", err, ex)
	}
	s.noteSpec(ex, "POST", "/v1/hooks/claude-code")
	check("http hook", ccTurn("sess-pos", 1), ex.respHeader.Get("Turnstile-Position"))
}

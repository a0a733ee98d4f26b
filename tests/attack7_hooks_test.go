package tests

import (
	"net/http"
	"testing"
)

// TestAttack7PostToolUseRewritesWhatRan (fixed: a report naming another
// invocation than the one decided is a 409, and the true one is recorded):
// the audit recorded a Claude Code
// call as run (tool_completed, and a "Ran: …" timeline row) from the
// PostToolUse hook, once per tool_use_id, with whatever tool_input that
// PostToolUse carries: it is never compared with the call that id was
// decided as. The agent holds the hook's runtime credential and can read
// its session's transcript (tool_use ids), so it can post the PostToolUse
// of its own call first, naming a harmless input: the audit then says the
// call ran `go test ./...` (the decision row says `rm -rf build`), and
// Claude Code's real PostToolUse, naming what ran, is dropped as a replay.
// What ran is never recorded.
//
// A re-sent decision with other content is a 409 tool_call_reused; a
// PostToolUse with other content should be refused (or recorded as the
// decided call) the same way.
//
// Control: a PostToolUse that names the decided input is recorded with the
// decided call's scope.
func TestAttack7PostToolUseRewritesWhatRan(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	admin := ccServer(t, ws, "auto_accept_edits", nil)
	s := roAs(admin, roCreate(t, admin, "claude", "runtime", "ws-cc"))
	const session = "sess-a7-post"
	t1 := ccTurn(session, 1)
	s.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))

	pre := func(id, command string) {
		t.Helper()
		s.hookHTTP(ccEdit(t, ccPayload(t, "pre_bash", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"command": command, "description": "x", "timeout": 120000}}))
	}
	post := func(id, command string) {
		t.Helper()
		s.hookHTTP(ccEdit(t, ccPayload(t, "post_bash", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"command": command, "description": "x", "timeout": 120000}}))
	}
	// Both calls ask (auto_accept_edits): answered "ask" for Claude Code's
	// own prompt, where the person allows them.
	pre("toolu_ctl", "go test ./...")
	pre("toolu_rm", "rm -rf build")

	// Control: the honest report.
	post("toolu_ctl", "go test ./...")
	// The agent's report of its own call comes first, naming another
	// command: refused. Claude Code's real one follows.
	fake := ccEdit(t, ccPayload(t, "post_bash", session, ws), map[string]any{"tool_use_id": "toolu_rm",
		"tool_input": map[string]any{"command": "go test ./...", "description": "x", "timeout": 120000}})
	if st, body := s.Request("POST", "/v1/hooks/claude-code", fake); st != http.StatusConflict {
		t.Errorf("a PostToolUse naming another command than the call decided: %d %s, want 409", st, body)
	}
	post("toolu_rm", "rm -rf build")

	type row struct {
		Kind       string `json:"kind"`
		ToolCallID string `json:"tool_call_id"`
		Detail     string `json:"detail"`
		RequestKey *struct {
			ScopeHash string `json:"scope_hash"`
		} `json:"request_key"`
	}
	var out struct {
		Rows []row `json:"rows"`
	}
	admin.JSON("GET", "/v1/turns/"+t1+"/audit", nil, http.StatusOK, &out)
	decided, ran := map[string]row{}, map[string]row{}
	for _, r := range out.Rows {
		switch r.Kind {
		case "approval_requested":
			decided[r.ToolCallID] = r
		case "tool_completed":
			ran[r.ToolCallID] = r
		}
	}
	for _, id := range []string{"toolu_ctl", "toolu_rm"} {
		if decided[id].RequestKey == nil || ran[id].RequestKey == nil {
			t.Fatalf("%s: decided %+v, ran %+v (rows %+v)", id, decided[id], ran[id], out.Rows)
		}
	}
	if decided["toolu_ctl"].RequestKey.ScopeHash != ran["toolu_ctl"].RequestKey.ScopeHash {
		t.Fatalf("control: the honest report names another scope than its decision: %+v / %+v", decided["toolu_ctl"], ran["toolu_ctl"])
	}
	if d, r := decided["toolu_rm"], ran["toolu_rm"]; d.RequestKey.ScopeHash != r.RequestKey.ScopeHash {
		t.Errorf("call toolu_rm was decided as %q but the audit records it as run as %q (scope %s ≠ %s); Claude Code's report of what ran was dropped",
			d.Detail, r.Detail, d.RequestKey.ScopeHash[:12], r.RequestKey.ScopeHash[:12])
	}
}

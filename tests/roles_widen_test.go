package tests

import (
	"net/http"
	"testing"
)

// TestRolesRuntimeCannotWidenItsTurn: the agent's runtime credential holds
// turn.change_profile, so it could raise its own turn to full_access — and
// with that approve its own pending requests. A change that widens needs
// turn.widen_profile (admin): the runtime gets 403 and nothing is appended,
// its pending request stays pending. Controls: the same runtime narrows its
// turn; the admin widens it.
func TestRolesRuntimeCannotWidenItsTurn(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "w1", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "supervised"}, "workspace_root": root}, http.StatusCreated, nil)
	ask := runtime.decide("w1", "c1", "exec_command", map[string]any{"cmd": "make deploy"})
	if ask.Decision != "ask" || ask.Request == nil {
		t.Fatalf("supervised exec: %+v", ask)
	}
	before := s.footprint("w1")

	for _, mode := range []string{"full_access", "auto_accept_edits"} {
		st, body := runtime.Request("POST", "/v1/turns/w1/permissions", map[string]any{"permission_profile": map[string]any{"mode": mode}})
		if e := wantError(t, st, body, http.StatusForbidden, "forbidden"); e.Details["operation"] != "turn.widen_profile" {
			t.Fatalf("runtime widening to %s: %+v", mode, e)
		}
	}
	if after := s.footprint("w1"); after != before {
		t.Fatalf("a refused widening appended: %v → %v", before, after)
	}
	var a approvalView
	s.JSON("GET", "/v1/approvals/"+ask.Request.RequestID, nil, http.StatusOK, &a)
	if a.Status != "pending" {
		t.Fatalf("the runtime's own request after its refused widening: %+v", a)
	}

	// Control: narrowing is the runtime's to do.
	runtime.JSON("POST", "/v1/turns/w1/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised",
		"denied_tools": []string{"web_fetch"}}}, http.StatusOK, nil)
	// Control: the admin widens.
	var tr turnAnswer
	s.JSON("POST", "/v1/turns/w1/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusOK, &tr)
	if tr.Turn.Profile.Mode != "full_access" {
		t.Fatalf("admin widening: %+v", tr.Turn)
	}
}

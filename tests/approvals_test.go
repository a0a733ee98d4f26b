package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestApprovalFlowOverSSE follows one approval from the ask to the cached
// grant on the event stream, with a long poll answered by another
// goroutine's response.
func TestApprovalFlowOverSSE(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	sse := s.subscribe("turn_id=flow", "")

	s.startTurn("flow", "ws-flow", "auto_accept_edits", root)
	for i, want := range []struct{ method, kind string }{
		{"turn/started", ""}, {"turn/permission/audit", "profile_selected"}, {"turn/permission/audit", "security_snapshot_resolved"},
	} {
		e := sse.Next()
		if e.Event != want.method || (want.kind != "" && e.Params["kind"] != want.kind) || e.Params["turn_id"] != "flow" || e.Params["version"] != float64(i) {
			t.Fatalf("event %d: %s %v, want %s %s at version %d", i, e.Event, e.Params, want.method, want.kind, i)
		}
	}

	ask := s.decide("flow", "c1", "exec_command", map[string]any{"cmd": "ls"})
	if ask.Decision != "ask" || ask.Request == nil {
		t.Fatalf("exec in auto_accept_edits: %+v", ask)
	}
	reqID := ask.Request.RequestID
	opened := sse.Next()
	if opened.Event != "turn/permission/request/opened" || opened.Params["tool_call_id"] != "c1" {
		t.Fatalf("after the ask: %s %v", opened.Event, opened.Params)
	}
	if r, _ := opened.Params["request"].(map[string]any); r["request_id"] != reqID || r["action"] != "shell_command" || r["scope_hash"] != ask.ScopeHash {
		t.Fatalf("opened request %v, want %s", r, reqID)
	}

	var pending struct{ Approvals []approvalView }
	s.JSON("GET", "/v1/approvals?status=pending", nil, http.StatusOK, &pending)
	if len(pending.Approvals) != 1 || pending.Approvals[0].Request.RequestID != reqID || pending.Approvals[0].Status != "pending" ||
		pending.Approvals[0].ToolCallID != "c1" {
		t.Fatalf("pending approvals %+v, want only %s", pending.Approvals, reqID)
	}
	for q, n := range map[string]int{"workspace_id=ws-flow": 1, "workspace_id=other": 0, "turn_id=flow": 1, "turn_id=other": 0, "status=resolved": 0, "status=all": 1} {
		var l struct{ Approvals []approvalView }
		s.JSON("GET", "/v1/approvals?"+q, nil, http.StatusOK, &l)
		if len(l.Approvals) != n {
			t.Fatalf("approvals?%s: %d, want %d", q, len(l.Approvals), n)
		}
	}
	if tr := s.turn("flow"); tr.Turn.Status != "awaiting_approval" || tr.Turn.PendingApprovals != 1 {
		t.Fatalf("turn while asking: %+v", tr.Turn)
	}

	// A short long poll on a request nobody answers comes back pending.
	var still approvalView
	s.JSON("GET", "/v1/approvals/"+reqID+"?wait=200ms", nil, http.StatusOK, &still)
	if still.Status != "pending" {
		t.Fatalf("unanswered long poll: %+v", still)
	}

	// The long poll waits; another goroutine answers.
	polled := make(chan approvalView, 1)
	go func() {
		var a approvalView
		status, body := s.Do("GET", "/v1/approvals/"+reqID+"?wait=10s", nil)
		if status == http.StatusOK {
			_ = json.Unmarshal(body, &a)
		}
		polled <- a
	}()
	pollUntil(t, "the long poll waits", func() bool { return s.scrape()["turnstile_approval_waiters"] == 1 })
	if status, body := s.Do("POST", "/v1/approvals/"+reqID+"/respond", map[string]string{"resolution": "allow_for_turn"}); status != http.StatusOK || !json.Valid(body) {
		t.Fatalf("the response failed: %d %s", status, body)
	}
	var got approvalView
	select {
	case got = <-polled:
	case <-time.After(30 * time.Second):
		t.Fatal("long poll never returned")
	}
	if got.Status != "resolved" || got.Resolution != "allow_for_turn" || got.Request.RequestID != reqID {
		t.Fatalf("long poll answered %+v, want resolved allow_for_turn", got)
	}
	resolved := sse.Next()
	if resolved.Event != "turn/permission/request/resolved" || resolved.Params["request_id"] != reqID ||
		resolved.Params["resolution"] != "allow_for_turn" || resolved.Params["reason"] != "user_approved" {
		t.Fatalf("after the response: %s %v", resolved.Event, resolved.Params)
	}

	// The same scope is now allowed from the grant; another scope still asks.
	cached := s.decide("flow", "c2", "exec_command", map[string]any{"cmd": "ls"})
	if cached.Decision != "allow" || cached.Reason != "cached_approval" || !cached.Cached || cached.ScopeHash != ask.ScopeHash {
		t.Fatalf("same scope after allow_for_turn: %+v", cached)
	}
	audit := sse.Next()
	if audit.Event != "turn/permission/audit" || audit.Params["kind"] != "decision_allowed" || audit.Params["reason"] != "cached_approval" ||
		audit.Params["cached"] != true || audit.Params["tool_call_id"] != "c2" {
		t.Fatalf("audit of the cached decision: %s %v", audit.Event, audit.Params)
	}
	other := s.decide("flow", "c3", "exec_command", map[string]any{"cmd": "ls -a"})
	if other.Decision != "ask" || other.Cached || other.Request == nil || other.Request.RequestID == reqID {
		t.Fatalf("another scope: %+v", other)
	}
	if e := sse.Next(); e.Event != "turn/permission/request/opened" {
		t.Fatalf("after the second ask: %s", e.Event)
	}
	s.JSON("GET", "/v1/approvals?status=pending&turn_id=flow", nil, http.StatusOK, &pending)
	if len(pending.Approvals) != 1 || pending.Approvals[0].Request.RequestID != other.Request.RequestID {
		t.Fatalf("pending after the grant: %+v", pending.Approvals)
	}

	// Completing the turn cancels the open request, then completes.
	s.JSON("POST", "/v1/turns/flow/complete", map[string]any{"reason": "done"}, http.StatusOK, nil)
	if e := sse.Next(); e.Event != "turn/permission/request/resolved" || e.Params["resolution"] != "cancelled" || e.Params["request_id"] != other.Request.RequestID {
		t.Fatalf("cancel on completion: %s %v", e.Event, e.Params)
	}
	if e := sse.Next(); e.Event != "turn/completed" || e.Params["status"] != "completed" || e.Params["reason"] != "done" {
		t.Fatalf("completion: %s %v", e.Event, e.Params)
	}
	s.JSON("GET", "/v1/approvals?status=pending", nil, http.StatusOK, &pending)
	if len(pending.Approvals) != 0 {
		t.Fatalf("pending after completion: %+v", pending.Approvals)
	}
	var rows struct {
		Rows []struct {
			Kind, Decision, Reason string
			Cached                 bool
		} `json:"rows"`
	}
	s.JSON("GET", "/v1/turns/flow/audit", nil, http.StatusOK, &rows)
	found := false
	for _, r := range rows.Rows {
		found = found || (r.Kind == "decision_allowed" && r.Reason == "cached_approval" && r.Cached)
	}
	if !found {
		t.Fatalf("no cached decision_allowed audit row: %+v", rows.Rows)
	}
}

// TestIdempotentAndConflictingCommands checks that repeats answer the stored
// result and change nothing, and that contradictions are refused.
func TestIdempotentAndConflictingCommands(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	start := map[string]any{"turn_id": "idem", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}
	var first, again turnAnswer
	s.JSON("POST", "/v1/turns", start, http.StatusCreated, &first)
	s.JSON("POST", "/v1/turns", start, http.StatusOK, &again)
	if again.Turn.ID != "idem" || again.Turn.Version != first.Turn.Version {
		t.Fatalf("repeated start: %+v after %+v", again.Turn, first.Turn)
	}
	fp := s.footprint("idem")
	start["thread_id"] = "another"
	status, body := s.Request("POST", "/v1/turns", start)
	wantError(t, status, body, http.StatusConflict, "turn_exists")
	if got := s.footprint("idem"); got != fp {
		t.Fatalf("conflicting start changed the turn: %v → %v", fp, got)
	}

	// A retried decision answers the stored one.
	d1 := s.decide("idem", "call-1", "read_file", map[string]any{"path": "a.txt"})
	fp = s.footprint("idem")
	d2 := s.decide("idem", "call-1", "read_file", map[string]any{"path": "a.txt"})
	if !d2.Replayed || d1.Replayed || d2.Decision != d1.Decision || d2.Reason != d1.Reason || d2.ScopeHash != d1.ScopeHash || d2.Version != d1.Version {
		t.Fatalf("retried decision %+v, first %+v", d2, d1)
	}
	if got := s.footprint("idem"); got != fp {
		t.Fatalf("retried decision appended: %v → %v", fp, got)
	}
	// The same id for a different invocation is refused.
	status, body = s.Request("POST", "/v1/turns/idem/decisions", map[string]any{"tool_call_id": "call-1", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "ls"}})
	wantError(t, status, body, http.StatusConflict, "tool_call_reused")

	// A retried ask answers the same request.
	ask := s.decide("idem", "call-2", "exec_command", map[string]any{"cmd": "make"})
	fp = s.footprint("idem")
	askAgain := s.decide("idem", "call-2", "exec_command", map[string]any{"cmd": "make"})
	if ask.Decision != "ask" || !askAgain.Replayed || askAgain.Request == nil || askAgain.Request.RequestID != ask.Request.RequestID || askAgain.Version != ask.Version {
		t.Fatalf("retried ask %+v, first %+v", askAgain, ask)
	}
	if got := s.footprint("idem"); got != fp {
		t.Fatalf("retried ask appended: %v → %v", fp, got)
	}
	reqID := ask.Request.RequestID

	// expired is the server's to give: refused as any value a client may
	// not give, listing those it may.
	status, body = s.Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]string{"resolution": "expired"})
	if e := wantError(t, status, body, http.StatusBadRequest, "invalid_enum"); e.Details["field"] != "resolution" || e.Details["value"] != "expired" ||
		strings.Contains(str(e.Details["allowed"]), "expired") {
		t.Fatalf("expired from a client (refused, and not offered among the allowed values): %+v", e)
	}
	if got := s.footprint("idem"); got != fp {
		t.Fatalf("refused response appended: %v → %v", fp, got)
	}

	if s.respond(reqID, "deny") {
		t.Fatal("the first response is marked replayed")
	}
	fp = s.footprint("idem")
	if !s.respond(reqID, "deny") {
		t.Fatal("the same response again is not marked replayed")
	}
	status, body = s.Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]string{"resolution": "allow_once"})
	e := wantError(t, status, body, http.StatusConflict, "already_resolved")
	if e.Details["resolution"] != "deny" || e.Details["request_id"] != reqID {
		t.Fatalf("conflicting response details %v", e.Details)
	}
	if got := s.footprint("idem"); got != fp {
		t.Fatalf("repeated and conflicting responses appended: %v → %v", fp, got)
	}
	var a approvalView
	s.JSON("GET", "/v1/approvals/"+reqID, nil, http.StatusOK, &a)
	if a.Status != "resolved" || a.Resolution != "deny" {
		t.Fatalf("request after the conflict: %+v", a)
	}
	// The denied call's decision, asked again, is still the stored ask.
	if d := s.decide("idem", "call-2", "exec_command", map[string]any{"cmd": "make"}); !d.Replayed || d.RequestStatus != "resolved" || d.Resolution != "deny" {
		t.Fatalf("decision of a denied request: %+v", d)
	}
}

// TestApprovalExpiry lets a request outlive a short --approval-ttl: the
// server resolves it as expired through the same path as a response.
func TestApprovalExpiry(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--approval-ttl", "1s")
	root := workspace(t)
	sse := s.subscribe("turn_id=exp", "")
	s.startTurn("exp", "ws", "supervised", root)
	status, d := s.exec("exp", "", map[string]any{"tool_call_id": "late", "argv": []string{"echo", "too late"}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v", status, d)
	}
	var a approvalView
	pollUntil(t, "the request to expire", func() bool {
		s.JSON("GET", "/v1/approvals/"+d.Request.RequestID+"?wait=5s", nil, http.StatusOK, &a)
		return a.Status == "resolved"
	})
	if a.Resolution != "expired" {
		t.Fatalf("overdue request: %+v", a)
	}
	e := sse.NextOf("turn/permission/request/resolved")
	if e.Params["resolution"] != "expired" || e.Params["reason"] != "expired" || e.Params["request_id"] != d.Request.RequestID {
		t.Fatalf("expiry notification %v", e.Params)
	}
	// A late answer finds it expired; the call does not run.
	status, body := s.Request("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"})
	if e := wantError(t, status, body, http.StatusConflict, "already_resolved"); e.Details["resolution"] != "expired" {
		t.Fatalf("late answer: %+v", e)
	}
	status, d = s.exec("exp", "", map[string]any{"tool_call_id": "late", "argv": []string{"echo", "too late"}})
	if status != http.StatusOK || d.Ran || d.Decision != "deny" || d.Reason != "expired" {
		t.Fatalf("exec of an expired call: %d %+v", status, d)
	}
	if tr := s.turn("exp"); tr.Turn.Status != "in_progress" || tr.Turn.PendingApprovals != 0 {
		t.Fatalf("turn after the expiry: %+v", tr.Turn)
	}
}

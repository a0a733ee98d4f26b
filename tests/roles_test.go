package tests

// Roles, workspace scopes and named credentials, end to end: every helper
// here starts with "ro".

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// roAs is a client of s that presents token instead of the admin token.
func roAs(s *Server, token string) *Server {
	return &Server{t: s.t, Data: s.Data, URL: s.URL, Token: token, http: s.http, specLog: s.specLog, reads: s.reads}
}

// roCreate creates a credential with `turnstile token create` and returns
// its token (printed once, on stdout).
func roCreate(t *testing.T, s *Server, name, role string, workspaces ...string) string {
	t.Helper()
	args := []string{"token", "create", "--server", s.URL, "--data", s.Data, "--name", name, "--role", role}
	for _, w := range workspaces {
		args = append(args, "--workspace", w)
	}
	out, errOut, code := runCLIEnv(t, envWithout("TURNSTILE_TOKEN"), args...)
	tok := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(tok, "tsk_") || strings.Contains(tok, "\n") {
		t.Fatalf("token create %s: exit %d\nstdout %q\nstderr %s", name, code, out, errOut)
	}
	return tok
}

// roActor is the actor of a stored event.
type roActor struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// roEvents reads a turn's events with their actors (admin token).
func roEvents(t *testing.T, s *Server, turnID string) []struct {
	Type     string          `json:"type"`
	Actor    roActor         `json:"actor"`
	Metadata json.RawMessage `json:"metadata"`
} {
	t.Helper()
	var out struct {
		Events []struct {
			Type     string          `json:"type"`
			Actor    roActor         `json:"actor"`
			Metadata json.RawMessage `json:"metadata"`
		} `json:"events"`
	}
	s.JSON("GET", "/v1/turns/"+turnID+"/events", nil, http.StatusOK, &out)
	return out.Events
}

// roRPC calls one JSON-RPC method as who and returns the result or error.
func roRPC(t *testing.T, who *Server, method string, params any) (result json.RawMessage, errData map[string]any) {
	t.Helper()
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	who.JSON("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, http.StatusOK, &resp)
	if resp.Error != nil {
		return nil, resp.Error.Data
	}
	return resp.Result, nil
}

// TestRolesRuntimeCannotApprove: the agent runtime's credential asks for a
// decision, then tries to answer its own approval request over REST and
// JSON-RPC: 403 each time and nothing appended; the approver's credential
// answers, and the resolution's actor and resolved_by are the approver, not
// what a header claims.
func TestRolesRuntimeCannotApprove(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	rt := roAs(s, roCreate(t, s, "agent-1", "runtime"))
	ap := roAs(s, roCreate(t, s, "alice", "approver"))
	root := workspace(t)

	rt.startTurn("ro-sep", "ws1", "supervised", root)
	d := rt.decide("ro-sep", "call-1", "exec_command", map[string]any{"cmd": []string{"go", "test"}})
	if d.Decision != "ask" || d.Request == nil {
		t.Fatalf("decision %+v, want ask", d)
	}
	before := s.footprint("ro-sep")

	// REST, with a header claiming to be an approver.
	status, body := rt.Request("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_for_turn"},
		"X-Turnstile-Actor", "approver:alice")
	e := wantError(t, status, body, http.StatusForbidden, "forbidden")
	if e.Details["role"] != "runtime" || e.Details["operation"] != "approval.respond" || !strings.Contains(e.Message, "approver") {
		t.Fatalf("403 does not say why: %s", body)
	}
	// JSON-RPC.
	_, rpcErr := roRPC(t, rt, "turn/permission/request/respond", map[string]any{"request_id": d.Request.RequestID, "resolution": "allow_once", "turn_id": "ro-sep"})
	if rpcErr == nil || rpcErr["status"] != float64(http.StatusForbidden) || rpcErr["code"] != "forbidden" {
		t.Fatalf("runtime over JSON-RPC: %v, want a 403 forbidden error", rpcErr)
	}
	if after := s.footprint("ro-sep"); after != before {
		t.Fatalf("a refused response appended: footprint %v → %v", before, after)
	}
	var a approvalView
	s.JSON("GET", "/v1/approvals/"+d.Request.RequestID, nil, http.StatusOK, &a)
	if a.Status != "pending" {
		t.Fatalf("request %s after the refused responses, want pending", a.Status)
	}

	// The approver may; the header cannot change who it was.
	status, body = ap.Request("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_for_turn"},
		"X-Turnstile-Actor", "admin:root")
	if status != http.StatusOK {
		t.Fatalf("approver: %d %s", status, body)
	}
	var resolved struct {
		Status     string  `json:"status"`
		ResolvedBy roActor `json:"resolved_by"`
	}
	s.JSON("GET", "/v1/approvals/"+d.Request.RequestID, nil, http.StatusOK, &resolved)
	if resolved.Status != "resolved" || resolved.ResolvedBy != (roActor{"alice", "approver"}) {
		t.Fatalf("resolved_by %+v (%s), want alice/approver", resolved.ResolvedBy, resolved.Status)
	}
	// Every event names the principal that caused it.
	for _, ev := range roEvents(t, s, "ro-sep") {
		want := roActor{"agent-1", "runtime"}
		if ev.Type == "permission.approval_resolved" {
			want = roActor{"alice", "approver"}
		}
		if ev.Actor != want {
			t.Errorf("%s: actor %+v, want %+v (metadata %s)", ev.Type, ev.Actor, want, ev.Metadata)
		}
		if !strings.Contains(string(ev.Metadata), `"actor":{"name":"`+want.Name+`","role":"`+want.Role+`"}`) {
			t.Errorf("%s: stored metadata %s does not record the actor", ev.Type, ev.Metadata)
		}
	}
	// The approver may not act as the runtime either, and the auditor
	// appends nothing.
	au := roAs(s, roCreate(t, s, "carol", "auditor"))
	for _, who := range []*Server{ap, au} {
		status, body = who.Request("POST", "/v1/turns/ro-sep/decisions", map[string]any{"tool_call_id": "call-x", "tool_name": "read_file", "arguments": map[string]any{"path": "a.txt"}})
		wantError(t, status, body, http.StatusForbidden, "forbidden")
		status, body = who.Request("POST", "/v1/turns", map[string]any{"turn_id": "ro-other", "workspace_id": "ws1", "thread_id": "t", "workspace_root": root})
		wantError(t, status, body, http.StatusForbidden, "forbidden")
	}
	status, _ = au.Request("GET", "/v1/turns/ro-sep/events", nil)
	if status != http.StatusOK {
		t.Fatalf("auditor reading events: %d", status)
	}
	if out, errOut, code := runCLIEnv(t, append(envWithout("TURNSTILE_TOKEN"), "TURNSTILE_TOKEN="+au.Token), "audit", "verify", "--server", s.URL, "--all"); code != 0 || !strings.Contains(out, "intact") {
		t.Fatalf("audit verify as the auditor: %d %s %s", code, out, errOut)
	}
	status, body = s.Request("POST", "/v1/credentials", map[string]any{"name": "admin", "role": "admin"})
	if e := wantError(t, status, body, http.StatusBadRequest, "invalid_field"); e.Details["field"] != "name" {
		t.Fatalf("a credential named like the admin token: %s", body)
	}
	status, body = rt.Request("GET", "/v1/turns/ro-sep/events", nil)
	wantError(t, status, body, http.StatusForbidden, "forbidden")
	if s.turn("ro-sep").Turn.Version != before[0]+1 {
		t.Fatalf("version %d, want %d (only the approver's resolution appended)", s.turn("ro-sep").Turn.Version, before[0]+1)
	}
	status, _ = s.Request("GET", "/v1/turns/ro-other", nil)
	if status != http.StatusNotFound {
		t.Fatalf("a refused start created the turn: %d", status)
	}
}

// TestRolesWorkspaceScope: an approver scoped to ws1 neither sees nor
// answers ws2's requests, over REST, JSON-RPC and SSE; ws1's it does.
func TestRolesWorkspaceScope(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	rt := roAs(s, roCreate(t, s, "runner", "runtime"))
	ap1 := roAs(s, roCreate(t, s, "ws1-approver", "approver", "ws1"))
	rt1 := roAs(s, roCreate(t, s, "ws1-runtime", "runtime", "ws1"))
	root := workspace(t)
	call := map[string]any{"cmd": []string{"make"}}

	rt.startTurn("ro-w2", "ws2", "supervised", root)
	d2 := rt.decide("ro-w2", "c1", "exec_command", call)
	rt.startTurn("ro-w1", "ws1", "supervised", root)
	d1 := rt.decide("ro-w1", "c1", "exec_command", call)
	if d1.Request == nil || d2.Request == nil {
		t.Fatalf("decisions %+v %+v, want requests", d1, d2)
	}
	before := s.footprint("ro-w2")

	// REST: the list shows ws1 only; ws2's request is neither readable nor
	// answerable; asking for ws2 explicitly is refused.
	var list struct {
		Approvals []approvalView `json:"approvals"`
	}
	ap1.JSON("GET", "/v1/approvals?status=pending", nil, http.StatusOK, &list)
	if len(list.Approvals) != 1 || list.Approvals[0].Request.WorkspaceID != "ws1" {
		t.Fatalf("ws1 approver lists %+v, want ws1's request only", list.Approvals)
	}
	s.JSON("GET", "/v1/approvals?status=pending", nil, http.StatusOK, &list)
	if len(list.Approvals) != 2 {
		t.Fatalf("admin lists %d requests, want 2", len(list.Approvals))
	}
	status, body := ap1.Request("GET", "/v1/approvals?workspace_id=ws2", nil)
	wantError(t, status, body, http.StatusForbidden, "forbidden")
	// A request or turn of ws2 named by its id is answered as a missing
	// one (404, naming nothing of ws2), so that its id is not confirmed
	// and its workspace not named (TestAttack25OtherWorkspaceIdsConfirmedAndNamed).
	status, body = ap1.Request("GET", "/v1/approvals/"+d2.Request.RequestID, nil)
	wantError(t, status, body, http.StatusNotFound, "not_found")
	status, body = ap1.Request("GET", "/v1/turns/ro-w2", nil)
	wantError(t, status, body, http.StatusNotFound, "not_found")
	status, body = ap1.Request("POST", "/v1/approvals/"+d2.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"})
	wantError(t, status, body, http.StatusNotFound, "not_found")
	if strings.Contains(string(body), "ws2") {
		t.Fatalf("the answer names ws2: %s", body)
	}
	status, body = ap1.Request("POST", "/v1/approvals/"+d2.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once", "turn_id": "ro-w2"})
	wantError(t, status, body, http.StatusNotFound, "not_found")
	// JSON-RPC.
	for _, p := range []map[string]any{
		{"request_id": d2.Request.RequestID, "resolution": "deny"},
		{"request_id": d2.Request.RequestID, "resolution": "deny", "turn_id": "ro-w2"},
	} {
		if _, rpcErr := roRPC(t, ap1, "turn/permission/request/respond", p); rpcErr == nil || rpcErr["status"] != float64(http.StatusNotFound) {
			t.Fatalf("RPC respond to ws2 %v: %v, want 404", p, rpcErr)
		}
	}
	if _, rpcErr := roRPC(t, ap1, "turn/get", map[string]any{"turn_id": "ro-w2"}); rpcErr == nil || rpcErr["status"] != float64(http.StatusNotFound) {
		t.Fatalf("RPC turn/get of ws2: %v, want 404", rpcErr)
	}
	// A runtime scoped to ws1 can neither start in ws2 nor decide there.
	status, body = rt1.Request("POST", "/v1/turns", map[string]any{"turn_id": "ro-w2b", "workspace_id": "ws2", "thread_id": "t", "workspace_root": root})
	wantError(t, status, body, http.StatusForbidden, "forbidden")
	status, body = rt1.Request("POST", "/v1/turns/ro-w2/decisions", map[string]any{"tool_call_id": "c9", "tool_name": "exec_command", "arguments": call})
	wantError(t, status, body, http.StatusNotFound, "not_found")
	if after := s.footprint("ro-w2"); after != before {
		t.Fatalf("refused requests appended to ws2's turn: %v → %v", before, after)
	}

	// SSE: the ws1 approver's stream from the start carries ws1's events
	// only; the admin's carries both (control). ws2's events come first in
	// the log, so by the time ws1's request arrives they would have too.
	st := ap1.subscribe("from=start", "")
	seen := map[string]bool{}
	for {
		ev := st.Next()
		seen[str(ev.Params["turn_id"])] = true
		if ev.Event == "turn/permission/request/opened" && ev.Params["turn_id"] == "ro-w1" {
			break
		}
	}
	if seen["ro-w2"] {
		t.Fatal("the ws1 approver's event stream carried ws2's events")
	}
	adminStream := s.subscribe("from=start", "")
	if ev := adminStream.NextOf("turn/started"); ev.Params["turn_id"] != "ro-w2" {
		t.Fatalf("admin stream's first turn %v, want ro-w2", ev.Params["turn_id"])
	}
	status, _ = ap1.Request("GET", "/v1/events?workspace_id=ws2", nil)
	if status != http.StatusForbidden {
		t.Fatalf("SSE filtered on ws2 for the ws1 approver: %d, want 403", status)
	}

	status, _ = ap1.Request("GET", "/v1/events?turn_id=ro-w2", nil)
	if status != http.StatusNotFound {
		t.Fatalf("SSE filtered on a ws2 turn for the ws1 approver: %d, want 404", status)
	}
	// A ws1 runtime cannot reach ws2 through a child turn or a profile
	// change either.
	status, body = rt1.Request("POST", "/v1/turns", map[string]any{"turn_id": "ro-child", "workspace_id": "ws1", "thread_id": "t",
		"workspace_root": root, "parent_turn_id": "ro-w2"})
	wantError(t, status, body, http.StatusNotFound, "not_found")
	status, body = rt1.Request("POST", "/v1/turns/ro-w2/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}})
	wantError(t, status, body, http.StatusNotFound, "not_found")
	if after := s.footprint("ro-w2"); after != before {
		t.Fatalf("refused requests appended to ws2's turn: %v → %v", before, after)
	}

	// Control: ws1's request is the approver's to answer.
	ap1.respond(d1.Request.RequestID, "allow_once")
	if ev := st.NextOf("turn/permission/request/resolved"); ev.Params["turn_id"] != "ro-w1" {
		t.Fatalf("resolved event %v, want ro-w1", ev.Params)
	}
}

// TestRolesCredentialLifecycle: tokens are shown once and stored only as a
// salted hash; names are unique among active credentials; only an admin
// manages them; a revoked token fails on the next request.
func TestRolesCredentialLifecycle(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	tok := roCreate(t, s, "bob", "auditor")
	bob := roAs(s, tok)
	if status, _ := bob.Request("GET", "/v1/turns", nil); status != http.StatusOK {
		t.Fatalf("a new auditor token: %d", status)
	}
	// Only an admin manages credentials.
	status, body := bob.Request("POST", "/v1/credentials", map[string]any{"name": "eve", "role": "admin"})
	wantError(t, status, body, http.StatusForbidden, "forbidden")
	status, body = s.Request("POST", "/v1/credentials", map[string]any{"name": "bob", "role": "runtime"})
	wantError(t, status, body, http.StatusConflict, "credential_exists")
	status, body = s.Request("POST", "/v1/credentials", map[string]any{"name": "x", "role": "root"})
	wantError(t, status, body, http.StatusBadRequest, "invalid_enum")

	// The list and the store hold no secret.
	out, errOut, code := runCLIEnv(t, envWithout("TURNSTILE_TOKEN"), "token", "list", "--server", s.URL, "--data", s.Data)
	secret := tok[strings.LastIndex(tok, "_")+1:]
	if code != 0 || !strings.Contains(out, "bob") || !strings.Contains(out, "auditor") || strings.Contains(out, secret) {
		t.Fatalf("token list: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(s.Output(), secret) {
		t.Fatal("the server logged the secret")
	}

	// Revocation: the next request fails; a guessed token with the right
	// id and a wrong secret fails too.
	wrong := tok[:strings.LastIndex(tok, "_")+1] + strings.Repeat("0", len(secret))
	if status, _ := roAs(s, wrong).Request("GET", "/v1/turns", nil); status != http.StatusUnauthorized {
		t.Fatalf("a wrong secret for bob's id: %d, want 401", status)
	}
	if out, errOut, code := runCLIEnv(t, envWithout("TURNSTILE_TOKEN"), "token", "revoke", "--server", s.URL, "--data", s.Data, "bob"); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("token revoke: exit %d %s %s", code, out, errOut)
	}
	status, body = bob.Request("GET", "/v1/turns", nil)
	wantError(t, status, body, http.StatusUnauthorized, "unauthorized")
	status, body = s.Request("POST", "/v1/credentials/bob/revoke", nil)
	wantError(t, status, body, http.StatusNotFound, "not_found")
	// The name is free again, with a new secret; the old token stays dead.
	tok2 := roCreate(t, s, "bob", "approver")
	if tok2 == tok {
		t.Fatal("a re-created credential has the old token")
	}
	if status, _ := roAs(s, tok2).Request("GET", "/v1/approvals", nil); status != http.StatusOK {
		t.Fatalf("the new bob: %d", status)
	}
	if status, _ := bob.Request("GET", "/v1/approvals", nil); status != http.StatusUnauthorized {
		t.Fatalf("the revoked bob: %d", status)
	}
	// After a restart the credentials are folded from the store again.
	s.Restart()
	bob = roAs(s, tok) // the same token at the new address
	if status, _ := roAs(s, tok2).Request("GET", "/v1/approvals", nil); status != http.StatusOK {
		t.Fatalf("the new bob after a restart: %d", status)
	}
	if status, _ := bob.Request("GET", "/v1/approvals", nil); status != http.StatusUnauthorized {
		t.Fatalf("the revoked bob after a restart: %d", status)
	}
	db := storeBytes(t, s.Data)
	if strings.Contains(string(db), secret) || strings.Contains(string(db), tok2[strings.LastIndex(tok2, "_")+1:]) {
		t.Fatal("the store holds a secret")
	}
	if !strings.Contains(string(db), "credential.created") || !strings.Contains(string(db), "credential.revoked") {
		t.Fatal("creation and revocation are not events of the store")
	}
}

// TestRolesRevocationOnTwoInstances: two instances share one EventStoreDB;
// a credential revoked through A fails on the very next request to B, and
// the event stream it had open on B ends with credential_revoked.
func TestRolesRevocationOnTwoInstances(t *testing.T) {
	t.Parallel()
	p := miStartPair(t)
	tok := roCreate(t, p.A, "dave", "approver")
	daveB := roAs(p.B, tok)
	if status, body := daveB.Request("GET", "/v1/approvals", nil); status != http.StatusOK {
		t.Fatalf("a credential created on A, used on B: %d %s", status, body)
	}
	stream := daveB.subscribe("", "")
	defer stream.cancel()
	if out, errOut, code := runCLIEnv(t, envWithout("TURNSTILE_TOKEN"), "token", "revoke", "--server", p.A.URL, "--data", p.A.Data, "dave"); code != 0 {
		t.Fatalf("revoke on A: %d %s %s", code, out, errOut)
	}
	var reason sseEvent
	for timeout := time.After(time.Minute); ; {
		select {
		case e, ok := <-stream.ch:
			if ok {
				reason = e
				continue
			}
		case <-timeout:
			t.Fatal("dave's stream on B was still open a minute after the revocation on A")
		}
		break
	}
	if reason.Event != "error" || !strings.Contains(reason.Data, `"credential_revoked"`) {
		t.Fatalf("dave's stream on B ended without a credential_revoked error: %+v", reason)
	}
	status, body := daveB.Request("GET", "/v1/approvals", nil)
	wantError(t, status, body, http.StatusUnauthorized, "unauthorized")
	status, body = roAs(p.A, tok).Request("GET", "/v1/approvals", nil)
	wantError(t, status, body, http.StatusUnauthorized, "unauthorized")
	// Control: another credential created on B still works on A.
	erin := roCreate(t, p.B, "erin", "auditor")
	if status, body := roAs(p.A, erin).Request("GET", "/v1/turns", nil); status != http.StatusOK {
		t.Fatalf("a credential created on B, used on A: %d %s", status, body)
	}
}

// TestOpenAPIShowsRoles: the served document declares the bearer scheme
// and each operation's roles.
func TestOpenAPIShowsRoles(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	rt := roAs(s, roCreate(t, s, "rt", "runtime"))
	var doc struct {
		Components struct {
			SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
		} `json:"components"`
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	rt.JSON("GET", "/openapi.json", nil, http.StatusOK, &doc)
	if doc.Components.SecuritySchemes["bearer"]["scheme"] != "bearer" {
		t.Fatalf("no bearer scheme: %v", doc.Components.SecuritySchemes)
	}
	for path, want := range map[string]string{
		"/v1/approvals/{request_id}/respond": "[approver admin]",
		"/v1/turns":                          "[runtime admin]",
		"/v1/credentials":                    "[admin]",
	} {
		if got := str(doc.Paths[path]["post"]["x-turnstile-roles"]); got != want {
			t.Errorf("POST %s roles %s, want %s", path, got, want)
		}
	}
}

// TestRolesSystemActor: a request the server expires itself is resolved by
// the service's own actor, not by whoever asked.
func TestRolesSystemActor(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--approval-ttl", "200ms")
	rt := roAs(s, roCreate(t, s, "rt", "runtime"))
	rt.startTurn("ro-exp", "ws", "supervised", workspace(t))
	d := rt.decide("ro-exp", "c1", "exec_command", map[string]any{"cmd": []string{"make"}})
	var a struct {
		Status     string  `json:"status"`
		Resolution string  `json:"resolution"`
		ResolvedBy roActor `json:"resolved_by"`
	}
	rt.JSON("GET", "/v1/approvals/"+d.Request.RequestID+"?wait=30s", nil, http.StatusOK, &a)
	if a.Resolution != "expired" || a.ResolvedBy != (roActor{"turnstile", "system"}) {
		t.Fatalf("expired request: %+v, want resolved by turnstile/system", a)
	}
}

// TestRolesClaudeCodeHook: the hook acts as its credential. A runtime
// credential's call asked at Claude Code's prompt that ran is recorded as
// run, and its request withdrawn (cancelled by the runtime), never allowed
// by it: no allow_once, no grant. A runtime scoped to another workspace
// cannot drive the project's session, and an approver cannot call the hook
// at all. Under a pending-request quota of one, the next asked call is not
// refused for the request the person answered in Claude Code's prompt (it
// was, before the runtime withdrew it: it stayed open until it expired).
func TestRolesClaudeCodeHook(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", nil, "--max-pending-approvals", "1")
	hk := roAs(s, roCreate(t, s, "claude", "runtime", "ws-cc"))
	other := roAs(s, roCreate(t, s, "elsewhere", "runtime", "ws-other"))
	ap := roAs(s, roCreate(t, s, "alice", "approver"))
	const session = "sess-roles"
	t1 := ccTurn(session, 1)

	for _, who := range []*Server{other, ap} {
		status, body := who.Request("POST", "/v1/hooks/claude-code", ccPayload(t, "user_prompt_submit", session, ws))
		wantError(t, status, body, http.StatusForbidden, "forbidden")
	}
	if status, _ := s.Request("GET", "/v1/turns/"+t1, nil); status != http.StatusNotFound {
		t.Fatalf("a refused hook started the turn: %d", status)
	}

	hk.hook(ccPayload(t, "user_prompt_submit", session, ws))
	if got := hk.hook(ccPayload(t, "pre_bash", session, ws)); !strings.Contains(got, `"permissionDecision":"ask"`) {
		t.Fatalf("Bash: %s", got)
	}
	req := requestIDOf(t, s, t1, "toolu_01Bash")
	// Another runtime's report cannot withdraw it (its workspace is not
	// the session's).
	status, body := other.Request("POST", "/v1/hooks/claude-code", ccPayload(t, "post_bash", session, ws))
	wantError(t, status, body, http.StatusForbidden, "forbidden")
	var a struct {
		Status     string  `json:"status"`
		Resolution string  `json:"resolution"`
		ResolvedBy roActor `json:"resolved_by"`
	}
	s.JSON("GET", "/v1/approvals/"+req, nil, http.StatusOK, &a)
	if a.Status != "pending" {
		t.Fatalf("another workspace's runtime resolved the request: %+v", a)
	}

	// A report of another input under the call's id is refused and
	// withdraws nothing.
	forged := ccEdit(t, ccPayload(t, "post_bash", session, ws), map[string]any{"tool_input": map[string]any{"command": "echo another"}})
	status, body = hk.Request("POST", "/v1/hooks/claude-code", forged)
	wantError(t, status, body, http.StatusConflict, "tool_call_reused")
	s.JSON("GET", "/v1/approvals/"+req, nil, http.StatusOK, &a)
	if a.Status != "pending" {
		t.Fatalf("a refused report resolved the request: %+v", a)
	}

	hk.hook(ccPayload(t, "post_bash", session, ws)) // it ran after Claude Code's prompt
	evs := roEvents(t, s, t1)
	resolved := 0
	for _, ev := range evs {
		if ev.Type == "permission.approval_resolved" {
			resolved++
		}
		if ev.Actor != (roActor{"claude", "runtime"}) {
			t.Errorf("%s: actor %+v, want claude/runtime", ev.Type, ev.Actor)
		}
	}
	if resolved != 1 {
		t.Fatalf("%d resolutions, want the runtime's one withdrawal", resolved)
	}
	if evs[len(evs)-1].Type != "tool.completed" {
		t.Fatalf("the run is not recorded: last event %s", evs[len(evs)-1].Type)
	}
	s.JSON("GET", "/v1/approvals/"+req, nil, http.StatusOK, &a)
	if a.Resolution != "cancelled" || a.ResolvedBy != (roActor{"claude", "runtime"}) {
		t.Fatalf("withdrawn request: %+v", a)
	}
	// The withdrawal granted nothing: the same call asks again, and the
	// quota of one open request admits it.
	again := ccEdit(t, ccPayload(t, "pre_bash", session, ws), map[string]any{"tool_use_id": "toolu_02Bash"})
	if got := hk.hook(again); !strings.Contains(got, `"permissionDecision":"ask"`) {
		t.Fatalf("the same Bash call after the withdrawal: %s", got)
	}
	// The approver still may answer that one (control), and a grant the
	// approver gives is what allows the call next.
	req2 := requestIDOf(t, s, t1, "toolu_02Bash")
	ap.respond(req2, "allow_for_turn")
	s.JSON("GET", "/v1/approvals/"+req2, nil, http.StatusOK, &a)
	if a.ResolvedBy != (roActor{"alice", "approver"}) || a.Resolution != "allow_for_turn" {
		t.Fatalf("resolved %+v", a)
	}
	third := ccEdit(t, ccPayload(t, "pre_bash", session, ws), map[string]any{"tool_use_id": "toolu_03Bash"})
	if got := hk.hook(third); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("the same Bash call under the approver's grant: %s", got)
	}
}

// TestHookLengthLimits: the hook's ids and names are bounded as the REST
// API's are (a deny naming the field); at the limit they pass.
func TestHookLengthLimits(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	s.hook(ccPayload(t, "user_prompt_submit", session0, ws))
	for field, v := range map[string]string{"tool_use_id": strings.Repeat("u", 129), "tool_name": strings.Repeat("T", 257), "cwd": ws + "/" + strings.Repeat("d", 5000)} {
		// A hook answers 200 with a deny naming the field (any other
		// status would let Claude Code run the tool: http hooks fail open).
		got := s.hookHTTP(ccEdit(t, ccPayload(t, "pre_read", session0, ws), map[string]any{field: v}))
		if !strings.Contains(got, `"permissionDecision":"deny"`) || !strings.Contains(got, field+": is ") {
			t.Fatalf("a long %s: %s", field, got)
		}
	}
	if got := s.hook(ccEdit(t, ccPayload(t, "pre_read", session0, ws), map[string]any{"tool_use_id": strings.Repeat("u", 128)})); !strings.Contains(got, `"allow"`) {
		t.Fatalf("a 128-character tool_use_id: %s", got)
	}
}

const session0 = "sess-limits"

// TestRolesRPCWebSocket: over the JSON-RPC WebSocket, a ws1 approver's
// notifications carry ws1 only, and a runtime's respond call is refused.
func TestRolesRPCWebSocket(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	rtTok := roCreate(t, s, "rt", "runtime")
	rt := roAs(s, rtTok)
	apTok := roCreate(t, s, "ws1-approver", "approver", "ws1")

	conn, err := dialRPC(t, s, apTok, "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := dialRPC(t, s, apTok, "?workspace_id=ws2"); err == nil {
		t.Fatal("a ws1 approver's socket filtered on ws2 was accepted")
	}
	rt.startTurn("ro-sock-2", "ws2", "supervised", root)
	d2 := rt.decide("ro-sock-2", "c1", "exec_command", map[string]any{"cmd": []string{"make"}})
	rt.startTurn("ro-sock-1", "ws1", "supervised", root)
	seen := map[string]bool{}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for !seen["ro-sock-1"] {
		if err := conn.SetReadDeadline(deadline); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := websocket.JSON.Receive(conn, &m); err != nil {
			t.Fatalf("socket: %v (seen %v)", err, seen)
		}
		if p, ok := m["params"].(map[string]any); ok {
			seen[str(p["turn_id"])] = true
		}
	}
	if seen["ro-sock-2"] {
		t.Fatal("the ws1 approver's socket carried ws2's notifications")
	}
	// Calls over the socket are authorised like POST /rpc.
	rtConn, err := dialRPC(t, s, rtTok, "")
	if err != nil {
		t.Fatal(err)
	}
	defer rtConn.Close()
	if err := websocket.JSON.Send(rtConn, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "turn/permission/request/respond",
		"params": map[string]any{"request_id": d2.Request.RequestID, "resolution": "allow_once"}}); err != nil {
		t.Fatal(err)
	}
	if err := rtConn.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for {
		var m map[string]any
		if err := websocket.JSON.Receive(rtConn, &m); err != nil {
			t.Fatal(err)
		}
		if m["id"] != float64(7) {
			continue
		}
		e, _ := m["error"].(map[string]any)
		if data, _ := e["data"].(map[string]any); data["status"] != float64(http.StatusForbidden) {
			t.Fatalf("a runtime's respond over the socket: %v", m)
		}
		break
	}
}

// TestRolesRevokedWaitingExecNeverRuns: a runtime waits in POST /exec
// (?wait) for a person's answer; its credential is revoked meanwhile. The
// wait ends unanswered (202, nothing ran) within about a second, and the
// approval given afterwards runs nothing for it: no exec.started is
// appended. Control: a second runtime's identical call, approved the same
// way, runs (200).
func TestRolesRevokedWaitingExecNeverRuns(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	for _, tc := range []struct {
		name   string
		revoke bool
	}{{"rt-revoked", true}, {"rt-kept", false}} {
		rt := roAs(s, roCreate(t, s, tc.name, "runtime"))
		turnID := "ro-wait-" + tc.name
		rt.startTurn(turnID, "ws", "supervised", root)
		events := s.subscribe("turn_id="+turnID, "")
		type answer struct {
			status int
			body   []byte
		}
		done := make(chan answer, 1)
		go func() {
			st, b := rt.Do("POST", "/v1/turns/"+turnID+"/exec?wait=60s", map[string]any{"tool_call_id": "c1", "argv": []string{"true"}})
			done <- answer{st, b}
		}()
		opened := events.NextOf("turn/permission/request/opened")
		req, _ := opened.Params["request"].(map[string]any)
		rid := str(req["request_id"])
		var got answer
		if tc.revoke {
			if st, b := s.Do("POST", "/v1/credentials/"+tc.name+"/revoke", nil); st != http.StatusOK {
				t.Fatalf("revoke: %d %s", st, b)
			}
			select {
			case got = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the revoked runtime's exec still waited 30 s after the revocation")
			}
			s.respond(rid, "allow_once")
		} else {
			s.respond(rid, "allow_once")
			got = <-done
		}
		var out struct {
			Ran bool `json:"ran"`
		}
		_ = json.Unmarshal(got.body, &out)
		started := 0
		for _, e := range roEvents(t, s, turnID) {
			if e.Type == "exec.started" {
				started++
			}
		}
		switch {
		case tc.revoke && (got.status != http.StatusAccepted || out.Ran || started != 0):
			t.Fatalf("revoked while waiting: %d %s, %d exec.started; want 202, nothing run", got.status, got.body, started)
		case !tc.revoke && (got.status != http.StatusOK || !out.Ran || started != 1):
			t.Fatalf("the control: %d %s, %d exec.started; want 200, run once", got.status, got.body, started)
		}
		events.Close()
	}
}

// TestChildTurnStaysInItsParentsWorkspace: a credential that may use two
// workspaces cannot start a child turn in the other one under a parent
// (an attack review did: the child's requests about the parent's roots
// then went to the other workspace's approvers); the refusal names the
// parent's workspace and appends nothing. The control: the child in the
// parent's workspace starts.
func TestChildTurnStaysInItsParentsWorkspace(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ws-parent", "workspace_id": "ws1", "thread_id": "t", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "ws-child", "workspace_id": "ws2", "thread_id": "t",
		"parent_turn_id": "ws-parent", "permission_profile": map[string]any{"mode": "auto_accept_edits"}})
	if status != http.StatusBadRequest || !strings.Contains(string(body), "ws1") || !strings.Contains(string(body), "workspace_id") {
		t.Fatalf("a child in another workspace: %d %s, want 400 naming workspace_id and ws1", status, body)
	}
	if status, _ := s.Do("GET", "/v1/turns/ws-child", nil); status != http.StatusNotFound {
		t.Fatalf("the refused child exists: %d", status)
	}
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ws-child", "workspace_id": "ws1", "thread_id": "t",
		"parent_turn_id": "ws-parent", "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
}

// TestNarrowingAParentNarrowsItsChildren: REFERENCE §10, "narrowing must
// block new violating operations at once; … delegated turns keep the
// updated permissions". A child started under an auto_accept_edits parent
// writes without asking; once the parent is narrowed to supervised, the
// same write in the child asks, and the child's profile says supervised
// (an attack review found the child kept its wider permissions). The
// control: before the change the child's write is allowed.
func TestNarrowingAParentNarrowsItsChildren(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("np-parent", "ws", "auto_accept_edits", root)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "np-child", "workspace_id": "ws", "thread_id": "t",
		"parent_turn_id": "np-parent", "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "np-grandchild", "workspace_id": "ws", "thread_id": "t",
		"parent_turn_id": "np-child", "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	wantDecision(t, "child writes before the change (control)", s.decide("np-child", "w1", "apply_patch", patchOf("Add", root+"/a.txt")), "allow", "policy_allows_action", "")
	s.JSON("POST", "/v1/turns/np-parent/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusOK, nil)
	for _, id := range []string{"np-child", "np-grandchild"} {
		if d := s.decide(id, "w2", "apply_patch", patchOf("Add", root+"/b.txt")); d.Decision != "ask" {
			t.Errorf("%s writes after its parent was narrowed to supervised: %s (%s), want ask", id, d.Decision, d.Reason)
		}
		var out struct {
			Turn struct {
				PermissionProfile struct{ Mode string } `json:"permission_profile"`
			} `json:"turn"`
		}
		s.JSON("GET", "/v1/turns/"+id, nil, http.StatusOK, &out)
		if out.Turn.PermissionProfile.Mode != "supervised" {
			t.Errorf("%s's mode after the parent's narrowing: %q, want supervised", id, out.Turn.PermissionProfile.Mode)
		}
	}
}

// TestChildTurnsAreBounded: one turn starts at most turn.MaxChildren child
// turns (a narrowing is carried to each, and an agent must not outrun it
// with children): the next is a 400 naming parent_turn_id, and nothing is
// appended for it; a turn of its own (no parent) still starts.
func TestChildTurnsAreBounded(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("many", "ws", "auto_accept_edits", root)
	for i := range 256 {
		s.JSON("POST", "/v1/turns", map[string]any{"turn_id": fmt.Sprintf("many-%d", i), "workspace_id": "ws", "thread_id": "t",
			"parent_turn_id": "many"}, http.StatusCreated, nil)
	}
	status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "many-256", "workspace_id": "ws", "thread_id": "t", "parent_turn_id": "many"})
	if status != http.StatusBadRequest || !strings.Contains(string(body), "parent_turn_id") {
		t.Fatalf("the 257th child: %d %s, want 400 naming parent_turn_id", status, body)
	}
	if status, _ := s.Do("GET", "/v1/turns/many-256", nil); status != http.StatusNotFound {
		t.Fatalf("the refused child exists: %d", status)
	}
	s.startTurn("alone", "ws", "auto_accept_edits", root)
}

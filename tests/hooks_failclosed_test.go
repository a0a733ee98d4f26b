package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/internal/scratchfs"
)

// TestHTTPHookPreToolUseFailsClosed: Claude Code runs a call whose http
// hook answers anything but 200, so every PreToolUse the server cannot
// decide is answered 200 deny. Three ways the agent could make the server
// fail to decide a call answered otherwise, and the call ran unchecked: a
// Write whose body passes the hook's 16 MiB (413), a data directory whose
// file system it filled (503 store_unavailable), and a server started
// without the Claude Code configuration (404). Controls: the same calls
// are allowed when they can be decided, and events other than PreToolUse
// keep their error status.
func TestHTTPHookPreToolUseFailsClosed(t *testing.T) {
	ws := workspace(t)
	ccProject(t, ws)
	cfg := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "full_access"}}})
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := scratchfs.Tmpfs(t, 32<<20)
	s := StartServer(t, data, "--claude-code-config", cfg)
	const session = "sess-failclosed"
	s.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	denied := func(answer string) bool { return strings.Contains(answer, `"permissionDecision":"deny"`) }

	write := func(id string, size int) []byte {
		return ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": filepath.Join(ws, "big.txt"), "content": strings.Repeat("x", size)}})
	}
	if got := s.hookHTTP(write("toolu_small", 1000)); denied(got) || !strings.Contains(got, `"allow"`) {
		t.Fatalf("control: a small Write: %s", got)
	}
	if got := s.hookHTTP(write("toolu_huge", 17<<20)); !denied(got) {
		t.Fatalf("a Write past the hook's 16 MiB: %s", got)
	}

	read := func(id string) []byte {
		return ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{"tool_use_id": id})
	}
	filler := filepath.Join(data, "filler")
	scratchfs.Fill(t, filler)
	refused := ""
	for i := range 5000 {
		id := fmt.Sprintf("toolu_full_%d", i)
		status, body := s.Request("POST", "/v1/hooks/claude-code", read(id))
		if status != http.StatusOK {
			t.Fatalf("a PreToolUse on a full disk: %d %s, want 200", status, body)
		}
		if denied(string(body)) {
			refused = string(body)
			break
		}
	}
	if refused == "" {
		t.Fatal("5,000 PreToolUse calls were recorded on a full file system")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if got := s.hookHTTP(read("toolu_after")); denied(got) {
		t.Fatalf("control: a Read once space returned: %s", got)
	}

	plain := StartServer(t, "")
	status, body := plain.Request("POST", "/v1/hooks/claude-code", read("toolu_unconfigured"))
	if status != http.StatusOK || !denied(string(body)) {
		t.Errorf("a PreToolUse to a server without the Claude Code configuration: %d %s", status, body)
	}
	status, _ = plain.Request("POST", "/v1/hooks/claude-code", ccPayload(t, "stop", session, ws))
	if status != http.StatusNotFound {
		t.Errorf("a Stop to a server without the Claude Code configuration: %d, want 404", status)
	}
}

// TestAttack15HookPreToolUseNestedTooDeep: an MCP tool's input is the
// model's JSON, which the agent shapes; one nested past the 10,000 levels
// encoding/json reads made the whole hook body unreadable, answered 400
// malformed, and Claude Code ran the call, as on any answer but 200.
// Control: the same call nested 100 levels is decided.
func TestAttack15HookPreToolUseNestedTooDeep(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	ccProject(t, ws)
	cfg := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "supervised"}}})
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfg)
	const session = "sess-deep"
	s.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	call := func(id string, depth int) []byte {
		p := ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{"tool_use_id": id, "tool_name": "mcp__deploy__run",
			"tool_input": map[string]any{"target": "prod", "opts": "@DEEP@"}})
		return bytes.Replace(p, []byte(`"@DEEP@"`), []byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)), 1)
	}
	status, body := s.Request("POST", "/v1/hooks/claude-code", call("toolu_shallow", 100))
	if status != http.StatusOK || !strings.Contains(string(body), `"permissionDecision"`) {
		t.Fatalf("control: an MCP call nested 100 levels: %d %s", status, body)
	}
	// Sent without the OpenAPI check, whose JSON reader refuses the body as
	// the server's did.
	ex, err := s.send(s.http, "POST", "/v1/hooks/claude-code", call("toolu_deep", 10_001))
	if err != nil {
		t.Fatal(err)
	}
	if ex.status != http.StatusOK || !strings.Contains(string(ex.data), `"permissionDecision":"deny"`) {
		t.Fatalf("an MCP call nested 10,001 levels: %d %.300s", ex.status, ex.data)
	}
	// Another event's malformed body keeps its error status.
	status, _ = s.Request("POST", "/v1/hooks/claude-code", []byte(`{"hook_event_name":"Stop","session_id":`))
	if status != http.StatusBadRequest {
		t.Fatalf("control: a truncated Stop: %d", status)
	}
}

// TestAttack15HTTPHookRevokedCredentialFailsOpen: an admin who revokes a
// misbehaving agent's runtime credential expects its calls refused, but
// the http hook's PreToolUse was answered 401 by the authentication in
// front of it, and Claude Code ran every call after, unchecked, as on any
// answer but 200. Controls: the same call is allowed before the
// revocation, and another route still answers 401.
func TestAttack15HTTPHookRevokedCredentialFailsOpen(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", nil)
	tok := roCreate(t, s, "cc-agent", "runtime")
	rt := roAs(s, tok)
	const session = "sess-revoked-open"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	read := func(id string) []byte {
		return ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{"tool_use_id": id})
	}
	if got := rt.hookHTTP(read("toolu_before")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: a Read before the revocation: %s", got)
	}
	if st, b := s.Request("POST", "/v1/credentials/cc-agent/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	status, body := rt.Request("POST", "/v1/hooks/claude-code", read("toolu_after"))
	if status != http.StatusOK || !strings.Contains(string(body), `"permissionDecision":"deny"`) {
		t.Fatalf("a PreToolUse with the revoked credential: %d %s", status, body)
	}
	if status, body := rt.Request("GET", "/v1/turns", nil); status != http.StatusUnauthorized {
		t.Fatalf("control: another route with the revoked credential: %d %s", status, body)
	}
}

package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ccOrdered is a Claude Code hook body with its fields in the order Claude
// Code writes them (the common fields, hook_event_name, then the event's),
// escaped as JSON.stringify escapes them (control characters as \u00XX,
// '<', '>' and '&' as they are).
func ccOrdered(t *testing.T, fields ...any) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		for _, v := range []any{fields[i], fields[i+1]} {
			var one bytes.Buffer
			enc := json.NewEncoder(&one)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			b.Write(bytes.TrimSpace(one.Bytes()))
			if v == fields[i] {
				b.WriteByte(':')
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// TestAttack16HookRevokedPeekPastCwd: a PreToolUse whose credential no
// longer authenticates is answered 200 deny only when the first 16 KiB of
// its body name the event, and Claude Code writes cwd before
// hook_event_name. The agent, whose Bash cd is followed by Claude Code,
// moved into a directory of its workspace named with control characters
// (each written \u00XX, six bytes, in the hook's JSON): 3,500 bytes of
// path, 21 KiB of JSON, put hook_event_name past the peek, and once the
// admin revoked its credential every PreToolUse was answered 401 and every
// call ran unchecked. Controls: the same call from that directory is
// allowed before the revocation, and after it a Stop and another route
// are still answered 401.
func TestAttack16HookRevokedPeekPastCwd(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", nil)
	tok := roCreate(t, s, "cc-agent", "runtime")
	rt := roAs(s, tok)
	const session = "sess-peek-cwd"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))

	deep := ws
	for range 14 {
		deep = filepath.Join(deep, strings.Repeat("\x01", 250))
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	common := func(event string) []any {
		return []any{"session_id", session, "transcript_path", "/home/dev/.claude/projects/ws/" + session + ".jsonl",
			"cwd", deep, "permission_mode", "default", "hook_event_name", event}
	}
	read := func(id string) []byte {
		return ccOrdered(t, append(common("PreToolUse"), "tool_name", "Read",
			"tool_input", map[string]any{"file_path": filepath.Join(ws, "src", "main.go")}, "tool_use_id", id)...)
	}
	if i := bytes.Index(read("toolu_x"), []byte(`"hook_event_name"`)); i < 16<<10 {
		t.Fatalf("the event is named at byte %d", i)
	}
	if got := rt.hookHTTP(read("toolu_before")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: a Read from the deep cwd before the revocation: %s", got)
	}
	if st, b := s.Request("POST", "/v1/credentials/cc-agent/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	status, body := rt.Request("POST", "/v1/hooks/claude-code", read("toolu_after"))
	if status != http.StatusOK || !strings.Contains(string(body), `"permissionDecision":"deny"`) {
		t.Errorf("a PreToolUse from the deep cwd with the revoked credential: %d %s (Claude Code runs the call)", status, body)
	}
	if status, body := rt.Request("POST", "/v1/hooks/claude-code", ccPayload(t, "stop", session, ws)); status != http.StatusUnauthorized {
		t.Errorf("control: a Stop with the revoked credential: %d %s", status, body)
	}
	if status, body := rt.Request("GET", "/v1/turns", nil); status != http.StatusUnauthorized {
		t.Errorf("control: another route with the revoked credential: %d %s", status, body)
	}
}

package tests

import (
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

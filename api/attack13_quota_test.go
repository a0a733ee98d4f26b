package api_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/api"
	"turnstile/domain"
)

// TestAttack13HookReportsPastTheByteQuota: the Claude Code hook's runtime
// credential, which the agent holds, reports tool calls as run
// (PostToolUse) under ids no PreToolUse decided. Each report is a
// tool_completed event holding the call's summary (a Bash command of
// 100 KB here), so a loop of reports grows the session's open turn without
// bound past --max-open-turn-bytes, which refuses new PreToolUse calls
// alone. A report of a call the turn decided is still recorded past the
// quota (the honest PostToolUse of a call allowed before it).
func TestAttack13HookReportsPastTheByteQuota(t *testing.T) {
	ws := t.TempDir()
	cc := &domain.ClaudeCodeConfig{Projects: []domain.ClaudeCodeProject{{Root: ws, WorkspaceID: "w", Mode: domain.ModeFullAccess}}}
	if err := cc.Validate(); err != nil {
		t.Fatal(err)
	}
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) {
		c.MaxHeldBytes = 1 << 20
		c.ClaudeCode = cc
	})
	agent := *s
	agent.token = s.credential("agent", "runtime", "w")
	hook := func(event, id, cmd string) (int, []byte) {
		return agent.do("POST", "/v1/hooks/claude-code", map[string]any{"session_id": "s", "cwd": ws, "hook_event_name": event,
			"permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": id,
			"tool_response": map[string]any{"stdout": "ok"}})
	}
	if st, b := hook("PreToolUse", "decided", "echo decided"); st != http.StatusOK || !strings.Contains(string(b), `"allow"`) {
		t.Fatalf("PreToolUse of an honest call: %d %s", st, b)
	}
	refused := -1
	for i := range 100 {
		st, b := hook("PostToolUse", fmt.Sprint("undecided-", i), "echo "+fmt.Sprint(i)+" "+strings.Repeat("x", 100_000))
		if st == http.StatusTooManyRequests {
			if !strings.Contains(string(b), `"quota":"open_turn_bytes_per_credential"`) {
				t.Fatalf("refusal: %s", b)
			}
			refused = i
			break
		}
		if st != http.StatusOK {
			t.Fatalf("PostToolUse %d: %d %s", i, st, b)
		}
	}
	if refused < 0 {
		t.Errorf("100 reports of calls no PreToolUse decided, 100 KB each, were all recorded under a quota of 1 MiB of open-turn events")
	}
	// The quota is in force: a new call is refused, and the honest report
	// of the call decided before it is still recorded.
	if st, b := hook("PreToolUse", "new", "echo new"); st != http.StatusOK || !strings.Contains(string(b), `"deny"`) || !strings.Contains(string(b), "bytes or more") {
		t.Fatalf("a new PreToolUse past the quota: %d %s", st, b)
	}
	if st, b := hook("PostToolUse", "decided", "echo decided"); st != http.StatusOK {
		t.Fatalf("the report of a decided call past the quota: %d %s", st, b)
	}
}

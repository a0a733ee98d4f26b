package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"turnstile/api"
	"turnstile/domain"
)

// TestAttack16HeldHookCountsFromArrival: a held Claude Code hook waits up
// to hold_wait for an approver, which the operator keeps below the hook's
// timeout in settings.json (60 s as installed), since Claude Code runs a
// call whose http hook has not answered by then. But the hold counted from
// its own start, after the decision: what came before it, a decision's
// scan waiting its turn behind the agent's (up to 20 s) and made (up to
// 8 s), or the body's upload, took the answer past hold_wait by as much,
// and past the hook's timeout with the default hold of 50 s. The hold now
// ends hold_wait after the request arrived. Here the request's body takes
// 2 s to arrive (the time before the hold), under a hold of 2 s with no
// approver and the read models held back: the answer, a deny for no
// answer, comes about 2 s after the request started, not 4 (a first call
// starts the session's turn). The control: the same call sent at once is
// held about hold_wait and denied the same way.
func TestAttack16HeldHookCountsFromArrival(t *testing.T) {
	ws := t.TempDir()
	const hold = 2 * time.Second
	s := startGatedWith(t, func(c *api.Config) {
		c.ClaudeCode = &domain.ClaudeCodeConfig{Ask: domain.ClaudeCodeAskHold, HoldWait: hold,
			Projects: []domain.ClaudeCodeProject{{Root: ws, WorkspaceID: "w", Mode: domain.ModeSupervised}}}
		if err := c.ClaudeCode.Validate(); err != nil {
			t.Fatal(err)
		}
	})
	send := func(id string, before time.Duration) (time.Duration, string) {
		body, _ := json.Marshal(map[string]any{"session_id": "sess", "cwd": ws, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "make " + id}, "tool_use_id": id})
		pr, pw := io.Pipe()
		go func() {
			pw.Write(body[:len(body)/2])
			time.Sleep(before) // the time before the hold: the scenario, not a wait for an event
			pw.Write(body[len(body)/2:])
			pw.Close()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "POST", s.url+"/v1/hooks/claude-code", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return time.Since(start), string(out)
	}
	send("toolu_first", 0) // starts the session's turn
	took, answer := send("toolu_slow", hold)
	if !strings.Contains(answer, `"permissionDecision":"deny"`) || !strings.Contains(answer, "no answer") {
		t.Fatalf("held hook, nobody answering: %s", answer)
	}
	if took > hold+hold/2 {
		t.Errorf("a held hook whose request took %v to arrive answered %v after it started, past its hold of %v by what came before it", hold, took, hold)
	}
	// control
	took, answer = send("toolu_at_once", 0)
	if !strings.Contains(answer, `"permissionDecision":"deny"`) || !strings.Contains(answer, "no answer") {
		t.Fatalf("control: held hook, nobody answering: %s", answer)
	}
	if took < hold-hold/10 {
		t.Errorf("control: a held hook answered after %v, before its hold of %v", took, hold)
	}
}

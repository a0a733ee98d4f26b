package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeHookSessionOfAnotherWorkspace: a hook's turns are found by
// its session id alone (a session's open turn is followed when its cwd
// wanders). A runtime credential scoped to workspace A, with a cwd in A's
// project, names the session of workspace B's project (its id is in the
// transcript paths under ~/.claude of a shared host): it must neither end
// B's turn (Stop), nor interrupt it (UserPromptSubmit), nor decide or
// record calls in it (PreToolUse, PostToolUse). The same hooks from B's
// credential do (control), and A's credential drives its own session.
func TestClaudeCodeHookSessionOfAnotherWorkspace(t *testing.T) {
	t.Parallel()
	wsA, wsB := workspace(t), workspace(t)
	ccProject(t, wsA)
	ccProject(t, wsB)
	cfg, _ := json.Marshal(map[string]any{"projects": []any{
		map[string]any{"root": wsA, "workspace_id": "ws-a", "mode": "supervised"},
		map[string]any{"root": wsB, "workspace_id": "ws-b", "mode": "supervised"},
	}})
	path := filepath.Join(t.TempDir(), "claude-code.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", path)
	hkA := roAs(s, roCreate(t, s, "claude-a", "runtime", "ws-a"))
	hkB := roAs(s, roCreate(t, s, "claude-b", "runtime", "ws-b"))
	const sessB, sessA = "sess-of-b", "sess-of-a"
	tB := ccTurn(sessB, 1)
	hkB.hook(ccPayload(t, "user_prompt_submit", sessB, wsB))
	hkA.hook(ccPayload(t, "user_prompt_submit", sessA, wsA))
	before := len(roEvents(t, s, tB))

	// The attacks: B's session id, A's cwd.
	// (subagent_stop: B's turn has no child to end; it must change nothing.)
	hkA.hook(ccPayload(t, "subagent_stop", sessB, wsA))
	// Each is refused, or answered as for a session that does not exist
	// (a Stop of no turn is nothing to stop): A learns nothing of B's.
	for _, name := range []string{"stop", "session_end", "user_prompt_submit", "post_read"} {
		status, body := hkA.Request("POST", "/v1/hooks/claude-code", ccPayload(t, name, sessB, wsA))
		noneStatus, noneBody := hkA.Request("POST", "/v1/hooks/claude-code", ccPayload(t, name, "sess-of-none", wsA))
		if status == http.StatusOK && (noneStatus != status || string(noneBody) != string(body)) {
			t.Errorf("%s of B's session from A's credential: 200 %s, want refused or the answer for no session (%d %s)", name, body, noneStatus, noneBody)
		}
	}
	got := hkA.hook(ccEdit(t, ccPayload(t, "pre_read", sessB, wsA), map[string]any{"tool_use_id": "toolu_x1"}))
	if !strings.Contains(got, `"deny"`) {
		t.Errorf("PreToolUse in B's session from A's credential: %s, want deny", got)
	}
	if evs := roEvents(t, s, tB); len(evs) != before {
		t.Errorf("A's credential appended to B's turn: %d events, was %d (last %s by %+v)", len(evs), before, evs[len(evs)-1].Type, evs[len(evs)-1].Actor)
	}
	if st := s.turn(tB).Turn.Status; st != "in_progress" {
		t.Errorf("B's turn is %s after A's hooks, want in_progress", st)
	}
	if status, _ := s.Request("GET", "/v1/turns/"+ccTurn(sessB, 2), nil); status != http.StatusNotFound {
		t.Errorf("A's prompt started B's session's next turn: %d", status)
	}

	// Controls: each credential drives its own session.
	if got := hkA.hook(ccPayload(t, "pre_read", sessA, wsA)); !strings.Contains(got, `"allow"`) {
		t.Errorf("PreToolUse in A's own session: %s, want allow", got)
	}
	if got := hkB.hook(ccPayload(t, "pre_read", sessB, wsB)); !strings.Contains(got, `"allow"`) {
		t.Errorf("PreToolUse in B's own session: %s, want allow", got)
	}
	hkB.hook(ccPayload(t, "stop", sessB, wsB))
	if st := s.turn(tB).Turn.Status; st != "completed" {
		t.Errorf("B's Stop: turn %s, want completed", st)
	}
	// B's session has no open turn now: A's credential must not start its
	// next one in A's workspace (taking the session over).
	got = hkA.hook(ccEdit(t, ccPayload(t, "pre_read", sessB, wsA), map[string]any{"tool_use_id": "toolu_x2"}))
	if !strings.Contains(got, `"deny"`) {
		t.Errorf("PreToolUse in B's ended session from A's credential: %s, want deny", got)
	}
	if status, body := s.Request("GET", "/v1/turns/"+ccTurn(sessB, 2), nil); status != http.StatusNotFound {
		t.Errorf("A's credential started B's session's next turn: %d %s", status, body)
	}
	hkB.hook(ccPayload(t, "user_prompt_submit", sessB, wsB))
	if st := s.turn(ccTurn(sessB, 2)).Turn.Status; st != "in_progress" {
		t.Errorf("B's next prompt: turn 2 %s, want in_progress (control)", st)
	}
}

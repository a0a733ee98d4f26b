package tests

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack18CarriedNarrowingDropsLists: an admin narrows a misbehaving
// Claude Code session without changing its mode, the usual way to take
// one tool or the paths outside a directory away (denied_tools:
// exec_command, Claude Code's Bash; allowed_paths: src), and the agent,
// holding the hook's runtime credential, sent a Stop of its own: the
// session's next turn carried the admin's mode only, and Claude Code's
// next PreToolUse ran Bash and wrote outside src again. The next turn now
// carries the lists the admin's change gave too. Controls: before the
// narrowing Bash is allowed; after it, in the same turn and in the next,
// a Write in src is allowed; a session nobody changed allows Bash in its
// next turn; and once the admin lifts the lists again, the next turn
// allows Bash.
func TestAttack18CarriedNarrowingDropsLists(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	rt := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	bash := func(session, id string) string {
		return rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_bash", session, ws), map[string]any{"tool_use_id": id}))
	}
	write := func(session, id, path string) string {
		return rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": filepath.Join(ws, path), "content": "x\n"}}))
	}
	allowed := func(answer string) bool { return strings.Contains(answer, `"permissionDecision":"allow"`) }
	change := func(turnID string, profile map[string]any) {
		t.Helper()
		st, b := s.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": profile})
		if st != http.StatusOK {
			t.Fatalf("%s to %v: %d %s", turnID, profile, st, b)
		}
	}

	const session = "sess-narrow-lists"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if got := bash(session, "toolu_b1"); !allowed(got) {
		t.Fatalf("control: Bash under full_access: %s", got)
	}
	change(ccTurn(session, 1), map[string]any{"mode": "full_access", "denied_tools": []string{"exec_command"},
		"allowed_paths": []string{filepath.Join(ws, "src")}})
	if got := bash(session, "toolu_b2"); allowed(got) {
		t.Fatalf("Bash after the admin denied it: %s", got)
	}
	if got := write(session, "toolu_w2", "src/a.go"); !allowed(got) {
		t.Fatalf("control: a Write in src after the narrowing: %s", got)
	}
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	if got := bash(session, "toolu_b3"); allowed(got) {
		t.Errorf("the admin's denied_tools ended with the agent's Stop: the next turn allowed Bash: %s", got)
	}
	if got := write(session, "toolu_w3", "Makefile"); allowed(got) {
		t.Errorf("the admin's allowed_paths ended with the agent's Stop: the next turn allowed a Write outside src: %s", got)
	}
	if got := write(session, "toolu_w4", "src/b.go"); !allowed(got) {
		t.Errorf("control: a Write in src in the next turn: %s", got)
	}
	// The lists carry on over the turns after it (a forged
	// UserPromptSubmit starts one the same way).
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if got := bash(session, "toolu_b4"); allowed(got) {
		t.Errorf("Bash two turns later: %s", got)
	}

	// Control: the admin lifts the lists; the next turn allows Bash.
	change(ccTurn(session, 3), map[string]any{"mode": "full_access"})
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	if got := bash(session, "toolu_b5"); !allowed(got) {
		t.Errorf("control: after the admin lifted the lists, the next turn: %s", got)
	}

	// Control: a session nobody changed allows Bash in its next turn.
	const other = "sess-plain-lists"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", other, ws))
	rt.hookHTTP(ccPayload(t, "stop", other, ws))
	if got := bash(other, "toolu_p1"); !allowed(got) {
		t.Errorf("control: a plain session's next turn: %s", got)
	}
}

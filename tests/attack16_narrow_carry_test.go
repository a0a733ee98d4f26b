package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAttack16NarrowingEndsAtForgedStop: an admin narrows a misbehaving
// Claude Code session's turn (full_access to supervised), and a Write now
// asks; the agent, holding the hook's runtime credential, sends a Stop of
// its own, and Claude Code's next PreToolUse started the session's next
// turn in the project's mode, where the same Write was allowed (sixteenth
// attack review, medium, found by the API reviewer and left open there).
// The next turn keeps a profile another principal than the hook's gave the
// previous one. Controls: before the narrowing the Write is allowed; a
// session whose turns nobody changed starts its next turn in the project's
// mode; and once the admin widens the turn again, the next turn is back in
// the project's mode, not wider.
func TestAttack16NarrowingEndsAtForgedStop(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	rt := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	write := func(session, id string) string {
		return rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id}))
	}
	allowed := func(answer string) bool { return strings.Contains(answer, `"permissionDecision":"allow"`) }
	setMode := func(turnID, mode string) {
		t.Helper()
		st, b := s.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": mode}})
		if st != http.StatusOK {
			t.Fatalf("%s to %s: %d %s", turnID, mode, st, b)
		}
	}

	const session = "sess-narrow"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if got := write(session, "toolu_w1"); !allowed(got) {
		t.Fatalf("control: a Write under full_access: %s", got)
	}
	setMode(ccTurn(session, 1), "supervised")
	if got := write(session, "toolu_w2"); allowed(got) {
		t.Fatalf("a Write after the admin's narrowing: %s", got)
	}
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	if got := write(session, "toolu_w3"); allowed(got) {
		t.Errorf("the admin's narrowing ended with the agent's Stop: the next turn allowed %s", got)
	}
	var turn2 struct {
		Turn struct {
			Profile struct {
				Mode string `json:"mode"`
			} `json:"permission_profile"`
		} `json:"turn"`
	}
	if st, b := s.Request("GET", "/v1/turns/"+ccTurn(session, 2), nil); st != http.StatusOK || json.Unmarshal(b, &turn2) != nil || turn2.Turn.Profile.Mode != "supervised" {
		t.Errorf("the session's next turn: %d %s", st, b)
	}
	// A forged UserPromptSubmit starts the next turn the same way.
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if got := write(session, "toolu_w4"); allowed(got) {
		t.Errorf("after a UserPromptSubmit: %s", got)
	}

	// Control: the admin widens the turn again; the session's next turn is
	// in the project's mode (full_access here), not wider.
	setMode(ccTurn(session, 3), "full_access")
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	if got := write(session, "toolu_w5"); !allowed(got) {
		t.Errorf("control: after the admin widened the session again, the next turn: %s", got)
	}

	// Control: a session nobody changed starts each turn in the project's mode.
	const other = "sess-plain"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", other, ws))
	rt.hookHTTP(ccPayload(t, "stop", other, ws))
	if got := write(other, "toolu_p1"); !allowed(got) {
		t.Errorf("control: a plain session's next turn: %s", got)
	}
}

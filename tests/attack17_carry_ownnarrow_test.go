package tests

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestAttack17CarriedNarrowingDroppedByOwnNarrowing: a Claude Code
// session's next turn keeps the mode or profile another principal than
// the hook's gave its previous turn (298abfd), read from whoever made the
// turn's last profile change. The runtime may narrow a turn, so the agent,
// holding the hook's credential, narrowed the admin's auto_accept_edits
// further to supervised itself: the last change was then the hook's
// principal's, and after a Stop of its own the session's next turn started
// in the project's full_access. The admin's change is carried whatever
// narrower change the hook's principal makes after it. Controls: the
// agent's narrowing is refused nothing; in a session nobody else changed,
// the agent's own narrowing is not carried (the next turn is in the
// project's mode); and once the admin widens the session again, the next
// turn is in the project's mode.
func TestAttack17CarriedNarrowingDroppedByOwnNarrowing(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	rt := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	setMode := func(as *Server, turnID, mode string) {
		t.Helper()
		st, b := as.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": mode}})
		if st != http.StatusOK {
			t.Fatalf("%s to %s: %d %s", turnID, mode, st, b)
		}
	}
	modeOf := func(turnID string) string {
		t.Helper()
		var got struct {
			Turn struct {
				Profile struct {
					Mode string `json:"mode"`
				} `json:"permission_profile"`
			} `json:"turn"`
		}
		st, b := s.Request("GET", "/v1/turns/"+turnID, nil)
		if st != http.StatusOK || json.Unmarshal(b, &got) != nil {
			t.Fatalf("%s: %d %s", turnID, st, b)
		}
		return got.Turn.Profile.Mode
	}

	const session = "sess-own-narrow"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	setMode(s, ccTurn(session, 1), "auto_accept_edits")
	setMode(rt, ccTurn(session, 1), "supervised")
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if m := modeOf(ccTurn(session, 2)); m == "full_access" {
		t.Errorf("the admin's narrowing to auto_accept_edits ended with the agent's own narrowing and Stop: the next turn is in %s", m)
	}
	// And on to the turn after (the carried turn's own narrowing).
	setMode(rt, ccTurn(session, 2), "supervised")
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if m := modeOf(ccTurn(session, 3)); m == "full_access" {
		t.Errorf("a carried turn narrowed by the agent: the next turn is in %s", m)
	}

	// Control: the admin widens the session again; the next turn is in the
	// project's mode.
	setMode(s, ccTurn(session, 3), "full_access")
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if m := modeOf(ccTurn(session, 4)); m != "full_access" {
		t.Errorf("control: after the admin widened the session again, the next turn is in %s", m)
	}

	// Control: a session nobody else changed: the agent's own narrowing is
	// not carried.
	const plain = "sess-plain-narrow"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", plain, ws))
	setMode(rt, ccTurn(plain, 1), "supervised")
	rt.hookHTTP(ccPayload(t, "stop", plain, ws))
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", plain, ws))
	if m := modeOf(ccTurn(plain, 2)); m != "full_access" {
		t.Errorf("control: a session only its hook's principal changed: the next turn is in %s", m)
	}
}

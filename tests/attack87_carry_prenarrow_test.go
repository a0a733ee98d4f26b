package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack87_CarryPreNarrow: a Claude Code session's next turn keeps the
// mode an admin gave its previous turn (ccCarriedProfile reads
// ProfileChangedBy). The agent, holding the hook's runtime credential,
// narrows its own turn to supervised first. The admin then narrows the
// session to supervised (a misbehaving session): the change is a no-op
// (decideChange answers Replayed for an equal snapshot, nothing is
// appended), answered 200 with the turn in supervised, so the turn's last
// change stays the hook principal's. After a Stop and a prompt of the
// agent's own, the session's next turn starts in the project's
// full_access: the admin's narrowing, which it was told took, is gone.
// Control: the same admin narrowing without the agent's pre-emptive one is
// carried (the next turn is supervised).
func TestAttack87_CarryPreNarrow(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	rt := roAs(s, roCreate(t, s, "cc-agent87", "runtime"))
	setMode := func(as *Server, turnID, mode string) {
		t.Helper()
		st, b := as.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": mode}})
		if st != http.StatusOK {
			t.Fatalf("%s to %s: %d %s", turnID, mode, st, b)
		}
		var got struct {
			Turn struct {
				Profile struct {
					Mode string `json:"mode"`
				} `json:"permission_profile"`
			} `json:"turn"`
		}
		if json.Unmarshal(b, &got) != nil || got.Turn.Profile.Mode != mode {
			t.Fatalf("%s to %s: answered %s", turnID, mode, b)
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

	// Control: the admin narrows a session the agent did not touch: carried.
	const plain = "sess87-admin-only"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", plain, ws))
	setMode(s, ccTurn(plain, 1), "supervised")
	rt.hookHTTP(ccPayload(t, "stop", plain, ws))
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", plain, ws))
	if m := modeOf(ccTurn(plain, 2)); m != "supervised" {
		t.Fatalf("control: the admin's narrowing is not carried: the next turn is in %s", m)
	}

	// Attack: the agent narrows itself to supervised before the admin does.
	const session = "sess87-prenarrow"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	setMode(rt, ccTurn(session, 1), "supervised") // the agent's own, pre-emptive
	setMode(s, ccTurn(session, 1), "supervised")  // the admin's: 200, the turn shows supervised
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if m := modeOf(ccTurn(session, 2)); m != "supervised" {
		t.Errorf("the admin narrowed the session to supervised (answered 200, the turn in supervised), but the agent had narrowed its turn to the same snapshot first: the change appended nothing, and after the agent's Stop the session's next turn is in %s", m)
	}
}

// TestAttack87_CarryPlanStart: the same with no change of the agent's at
// all: a session's turn that started in a permission mode the project maps
// to supervised (plan: the user's plan mode, or the agent's own
// UserPromptSubmit naming it) is already supervised; the admin's narrowing
// to supervised appends nothing, and the session's next turn, in the
// default mode, is in the project's full_access. Control: a session that
// started in the default mode is narrowed by the same admin change, and
// its next turn is supervised.
func TestAttack87_CarryPlanStart(t *testing.T) {
	ws := workspace(t)
	ccProject(t, ws)
	cfg := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "full_access",
		"permission_modes": map[string]any{"plan": "supervised"}}}})
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfg)
	rt := roAs(s, roCreate(t, s, "cc-agent87p", "runtime"))
	modeOf := func(turnID string) string {
		t.Helper()
		return s.turn(turnID).Turn.Profile.Mode
	}
	adminNarrow := func(turnID string) {
		t.Helper()
		st, b := s.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}})
		if st != http.StatusOK {
			t.Fatalf("%s: %d %s", turnID, st, b)
		}
	}
	prompt := func(session, mode string) {
		rt.hookHTTP(ccEdit(t, ccPayload(t, "user_prompt_submit", session, ws), map[string]any{"permission_mode": mode}))
	}

	// Control.
	const plain = "sess87p-default"
	prompt(plain, "default")
	adminNarrow(ccTurn(plain, 1))
	rt.hookHTTP(ccPayload(t, "stop", plain, ws))
	prompt(plain, "default")
	if m := modeOf(ccTurn(plain, 2)); m != "supervised" {
		t.Fatalf("control: the admin's narrowing is not carried: the next turn is in %s", m)
	}

	const session = "sess87p-plan"
	prompt(session, "plan")
	if m := modeOf(ccTurn(session, 1)); m != "supervised" {
		t.Fatalf("a plan-mode turn is in %s", m)
	}
	adminNarrow(ccTurn(session, 1))
	rt.hookHTTP(ccPayload(t, "stop", session, ws))
	prompt(session, "default")
	if m := modeOf(ccTurn(session, 2)); m != "supervised" {
		t.Errorf("the admin narrowed a session whose turn had started in plan mode to supervised (answered 200): the change appended nothing, and the session's next turn is in %s", m)
	}
}

package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack27HeldWriteSurvivesNarrowing: README, "A profile change
// mid-turn": "In the same append it clears the turn's grants, cancels the
// pending requests the new snapshot denies". The change re-evaluates each
// open request with domain.Evaluate on the recorded action (changeTo),
// which looks at the policy table and the tool and path lists only, never
// at the filesystem rules the resource check applies: a request for a
// write the new profile's rules deny stays open. With the Claude Code hook
// holding the call (ask = "hold"), a person's later allow is answered
// allow at once (ccAsk does not decide the call again), and Claude Code
// writes the file the turn's permissions now deny.
//
// The agent asks (Write web/.env in a supervised-table profile); the
// operator, seeing the request, narrows the session's turn to a profile
// that denies **/*.env; the request stays pending in the approvers' list
// and an approver answering it (who sees it still waiting) lets the write
// through.
//
// Worse, a widening resolves the open requests it now allows as
// allow_once, by the operator, with the same policy-only evaluation: an
// operator who moves the turn to "editenv" (the auto_accept_edits table,
// **/*.env denied) approves the held .env write themselves, unknowingly,
// and Claude Code writes it; no approver is involved at all.
//
// Control: a held Write of a.txt, approved, is allowed (the hold works).
func TestAttack27HeldWriteSurvivesNarrowing(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	ccProject(t, ws)
	os.MkdirAll(filepath.Join(ws, "web"), 0o755)
	os.WriteFile(filepath.Join(ws, "web", ".env"), []byte("E=1\n"), 0o600)
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(attack27Profiles+attack27EditEnv), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "profile": "sup"}},
		"ask": "hold", "hold_wait": "60s"})
	ccPath := filepath.Join(dir, "claude-code.json")
	if err := os.WriteFile(ccPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--claude-code-config", ccPath)
	tok := roCreate(t, s, "claude", "runtime", "ws-cc")
	rt := roAs(s, tok)
	const session = "s27-held"
	t1 := ccTurn(session, 1)
	rt.hook(ccPayload(t, "user_prompt_submit", session, ws))
	events := s.subscribe("turn_id="+t1, "")
	defer events.Close()

	held := func(id, path string) (reqID string, answer chan string) {
		answer = make(chan string, 1)
		p := ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": path, "content": "E=2\n"}})
		go func() {
			out, errOut, _ := hookCommand(t, s.URL, tok, p)
			answer <- out + errOut
		}()
		opened := events.NextOf("turn/permission/request/opened")
		req, _ := opened.Params["request"].(map[string]any)
		return str(req["request_id"]), answer
	}

	// Control: the hold works.
	id, answer := held("toolu_27ok", filepath.Join(ws, "a.txt"))
	s.respond(id, "allow_once")
	if got := <-answer; !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: a held Write of a.txt, approved: %s", got)
	}

	// The attack.
	id, answer = held("toolu_27env", filepath.Join(ws, "web", ".env"))
	var ch struct {
		Position string `json:"position"`
	}
	s.JSON("POST", "/v1/turns/"+t1+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": "supenv"}}, http.StatusOK, &ch)
	var a struct {
		Status     string `json:"status"`
		Resolution string `json:"resolution"`
	}
	s.JSON("GET", "/v1/approvals/"+id+"?after="+ch.Position, nil, http.StatusOK, &a)
	if a.Status == "pending" {
		t.Errorf("the held Write of web/.env is still pending after the turn was narrowed to a profile that denies **/*.env; want it cancelled")
		s.respond(id, "allow_once")
	}
	if got := <-answer; strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("the held Write of web/.env was answered allow after the narrowing to **/*.env = deny: %s", strings.TrimSpace(got))
	}

	// The widening: a second session, sup → editenv while the write waits.
	const session2 = "s27-held-2"
	t2 := ccTurn(session2, 1)
	rt.hook(ccPayload(t, "user_prompt_submit", session2, ws))
	events2 := s.subscribe("turn_id="+t2, "")
	defer events2.Close()
	answer2 := make(chan string, 1)
	p := ccEdit(t, ccPayload(t, "pre_write", session2, ws), map[string]any{"tool_use_id": "toolu_27env2",
		"tool_input": map[string]any{"file_path": filepath.Join(ws, "web", ".env"), "content": "E=3\n"}})
	go func() {
		out, errOut, _ := hookCommand(t, s.URL, tok, p)
		answer2 <- out + errOut
	}()
	events2.NextOf("turn/permission/request/opened")
	s.JSON("POST", "/v1/turns/"+t2+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": "editenv"}}, http.StatusOK, nil)
	if got := <-answer2; strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("the held Write of web/.env was answered allow by the operator's change to a profile that denies **/*.env (no approver asked): %s", strings.TrimSpace(got))
	}
}

// attack27EditEnv: the auto_accept_edits table with **/*.env denied.
const attack27EditEnv = `
[permissions.editenv]
extends = ":workspace"
[permissions.editenv.filesystem]
"**/*.env" = "deny"
`

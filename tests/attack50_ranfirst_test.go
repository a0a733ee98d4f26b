package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestAttack50RanReportSkipsRedecide: with "ask": "hold", an allowing
// answer is followed by the call's decision again, "so a change of the
// turn's permissions since the request still denies it" (README, Claude
// Code as a client): the engine re-judges an approved call against the
// snapshot in force, and a call approved under auto_accept_edits after an
// admin narrowed the turn to supervised is revoked (the approval was given
// for a wider mode). The engine skips that re-judgement for a call the
// runtime has already reported as run (State.ran), and the agent, holding
// the hook's credential and reading its session's transcript (the tool_use
// id of its next call, written before Claude Code asks), posts the
// PostToolUse of that call itself before its PreToolUse: recorded as run,
// with no decision. The held call, approved after the admin's narrowing,
// is then answered allow: the narrowing no longer holds it back.
//
// Control: the same sequence for a call the agent did not report first is
// denied after the approval ("the turn's permissions now deny it").
func TestAttack50RanReportSkipsRedecide(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	admin := ccServer(t, ws, "auto_accept_edits", map[string]any{"ask": "hold", "hold_wait": "60s"})
	rt := roAs(admin, roCreate(t, admin, "claude-a50", "runtime", "ws-cc"))
	const session = "sess-a50-ranfirst"
	t1 := ccTurn(session, 1)
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))

	bash := func(name, id, command string) []byte {
		return ccEdit(t, ccPayload(t, name, session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"command": command, "description": "x", "timeout": 120000}})
	}
	calls := []struct{ id, command string }{
		{"toolu_a50_ctl", "make deploy-staging"},
		{"toolu_a50_atk", "make deploy-prod"},
	}
	// The agent's forged report of its next call, before Claude Code's
	// PreToolUse for it (the tool_use id is in the transcript already).
	rt.hookHTTP(bash("post_bash", calls[1].id, calls[1].command))

	events := admin.subscribe("turn_id="+t1, "")
	answers := map[string]chan string{}
	for _, c := range calls {
		ch := make(chan string, 1)
		answers[c.id] = ch
		p := bash("pre_bash", c.id, c.command)
		go func() {
			out, errOut, code := hookCommand(t, admin.URL, rt.Token, p)
			ch <- fmt.Sprintf("%s%s(exit %d)", out, errOut, code)
		}()
		events.NextOf("turn/permission/request/opened")
	}
	// The admin narrows the session's turn; both requests still ask
	// under supervised and stay open for the approver.
	admin.JSON("POST", "/v1/turns/"+t1+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusOK, nil)
	for _, c := range calls {
		admin.respond(requestIDOf(t, admin, t1, c.id), "allow_once")
	}
	ctl, atk := <-answers[calls[0].id], <-answers[calls[1].id]
	if !strings.Contains(ctl, `"permissionDecision":"deny"`) || !strings.Contains(ctl, "now deny it") {
		t.Fatalf("control: a call approved after the turn was narrowed: %s", ctl)
	}
	if !strings.Contains(atk, `"permissionDecision":"deny"`) {
		t.Errorf("the call the agent reported as run before asking is allowed despite the narrowing: %s (control: %s)", atk, ctl)
	}
}

package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestClaudeCodeAutoModeAskIsHeld: with Claude Code's own prompt (ask =
// "ask"), a call turnstile asks about is answered "ask", and Claude Code's
// prompt decides. Under Claude Code's auto permission mode a classifier
// answers that prompt, not the person, and allows what it judges safe: an
// ask turnstile meant for a person was answered by a model. Under
// bypassPermissions Claude Code up to 2.1.199 ran a hook's ask without a
// prompt (anthropics/claude-code#77212), and the modes that never prompt
// (dontAsk) are reported to do the same (#89561). A call made in any of
// them is held for an approver, as with ask = "hold", and allowed only
// once a person has. Control: the same call in the default permission
// mode is answered "ask" at once.
func TestClaudeCodeAutoModeAskIsHeld(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", map[string]any{"hold_wait": "60s"})
	const session = "sess-auto"
	t1 := ccTurn(session, 1)
	s.hook(ccPayload(t, "user_prompt_submit", session, ws))
	if got := s.hook(ccPayload(t, "pre_bash", session, ws)); !strings.Contains(got, `"permissionDecision":"ask"`) {
		t.Fatalf("control: a Bash call in the default permission mode: %s", got)
	}

	events := s.subscribe("turn_id="+t1, "")
	for _, pm := range []string{"auto", "bypassPermissions", "dontAsk"} {
		answer := make(chan string, 1)
		p := ccEdit(t, ccPayload(t, "pre_bash", session, ws), map[string]any{"tool_use_id": "toolu_" + pm, "permission_mode": pm})
		go func() {
			out, errOut, code := hookCommand(t, s.URL, s.Token, p)
			answer <- fmt.Sprintf("%s%s(exit %d)", out, errOut, code)
		}()
		opened := events.NextOf("turn/permission/request/opened")
		req, _ := opened.Params["request"].(map[string]any)
		if str(req["request_id"]) != requestIDOf(t, s, t1, "toolu_"+pm) {
			t.Fatalf("%s: the request opened is not the call's: %v", pm, req)
		}
		select {
		case got := <-answer:
			t.Fatalf("the %s-mode call was answered before a person did: %s", pm, got)
		default:
		}
		s.respond(str(req["request_id"]), "allow_once")
		if got := <-answer; !strings.Contains(got, `"permissionDecision":"allow"`) || !strings.Contains(got, "approved (allow_once by admin:admin)") {
			t.Fatalf("the held %s-mode call after a person's allow: %s", pm, got)
		}
	}
}

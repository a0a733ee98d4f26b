package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack121RevokedApprovalRecordedAsAllowed: a call approved
// allow_once and then revoked by a narrowing (the runtime asks about it
// again after the permission change: decision_denied, refusal
// profile_changed, "the call's final answer") that the agent runs anyway
// and reports as run (PostToolUse) is recorded as run UNDER THE APPROVAL:
// decideToolRun sets the report's decision from the call's denial and then
// overwrites it with the resolved request's resolution. The audit's
// tool_completed row says allow_once and the timeline says "Ran: …", where
// a call turnstile denied must read "Ran without an allowing decision
// (deny)" (tests/hooks_attack_test.go): the record of a tool that ran
// against turnstile's last answer shows it as approved.
//
// Control: the same approved call, no narrowing, reported as run: recorded
// as run under its approval (allow_once, "Ran: …"), as it should be.
func TestAttack121RevokedApprovalRecordedAsAllowed(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", map[string]any{"ask": "ask"})
	rt := roAs(s, roCreate(t, s, "claude", "runtime", "ws-cc"))

	run := func(session string, narrow bool) (tc auditRow, timeline []string, preAgain string) {
		t.Helper()
		turnID := ccTurn(session, 1)
		rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
		pre := rt.hookHTTP(ccPayload(t, "pre_bash", session, ws))
		if !strings.Contains(pre, `"ask"`) {
			t.Fatalf("%s: auto_accept_edits Bash: %s, want ask", session, pre)
		}
		// The person answers allow_once in turnstile.
		s.respond(requestIDOf(t, s, turnID, "toolu_01Bash"), "allow_once")
		if narrow {
			// The person narrows the turn before the call runs.
			if st, b := s.changePermissions(turnID, map[string]any{"mode": "supervised"}); st != http.StatusOK {
				t.Fatalf("narrow: %d %s", st, b)
			}
		}
		// Claude Code asks again about the same call (a retry).
		preAgain = rt.hookHTTP(ccPayload(t, "pre_bash", session, ws))
		// It runs, and the report comes.
		rt.hookHTTP(ccPayload(t, "post_bash", session, ws))
		for _, r := range s.auditRows(turnID) {
			if r.Kind == "tool_completed" && r.ToolCallID == "toolu_01Bash" {
				tc = r
			}
		}
		return tc, s.timelineKinds(turnID), preAgain
	}

	t.Run("control", func(t *testing.T) {
		tc, tl, again := run("s121-ok", false)
		if !strings.Contains(again, `"allow"`) {
			t.Fatalf("control: the approved call asked again: %s, want allow", again)
		}
		if tc.Decision != "allow_once" {
			t.Fatalf("control: tool_completed %+v, want allow_once", tc)
		}
		if last := tl[len(tl)-1]; !strings.HasPrefix(last, "tool_ran: Ran: ") {
			t.Fatalf("control: last timeline row %q, want tool_ran", last)
		}
	})

	t.Run("attack", func(t *testing.T) {
		tc, tl, again := run("s121-revoked", true)
		if !strings.Contains(again, `"deny"`) {
			t.Fatalf("setup: the call asked again after the narrowing: %s, want deny (revoked)", again)
		}
		var denied bool
		for _, r := range s.auditRows(ccTurn("s121-revoked", 1)) {
			denied = denied || (r.Kind == "decision_denied" && r.ToolCallID == "toolu_01Bash")
		}
		if !denied {
			t.Fatalf("setup: no decision_denied row for the revoked call")
		}
		if tc.Decision != "deny" {
			t.Errorf("the call turnstile last denied (revoked) and that ran anyway is recorded as run with decision %q, want deny", tc.Decision)
		}
		if last := tl[len(tl)-1]; !strings.HasPrefix(last, "tool_ran_unallowed: Ran without an allowing decision (deny)") {
			t.Errorf("timeline shows the revoked call that ran as %q, want tool_ran_unallowed … (deny)", last)
		}
	})
}

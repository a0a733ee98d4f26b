package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack18ChildNarrowingEndsWithChild: an admin narrows the turn a
// misbehaving Claude Code session's calls show up in, and that turn is a
// child of the session's turn: a sub-agent's (a Task), or one the agent,
// holding the hook's runtime credential, started itself over REST, which
// takes every call of the session while it is open. The agent ended the
// child, a SubagentStop of its own (which names no child) or a REST
// complete, and the calls it sent there went to the session's turn,
// where the Write the admin's narrowing asked for was allowed; its
// session's next turn (a Stop of its own) allowed it too. The session's
// turn now takes the narrowing of a child another principal changed, and
// its next turn carries it. Controls: before the narrowing the Write is
// allowed in the child; after the admin narrowed the session's turn while
// a sub-agent ran and widened it again, it is allowed once the sub-agent
// stops, and so it is once the admin widens the session's turn after a
// sub-agent's narrowed turn stopped; a session whose children nobody changed allows it after its
// sub-agent stops and in its next turn.
func TestAttack18ChildNarrowingEndsWithChild(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	rt := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	allowed := func(a string) bool { return strings.Contains(a, `"permissionDecision":"allow"`) }
	write := func(session, id string) string {
		return rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id}))
	}
	task := func(session, id string) string {
		t.Helper()
		got := rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_task", session, ws), map[string]any{"tool_use_id": id}))
		if !allowed(got) {
			t.Fatalf("control: a Task: %s", got)
		}
		return ccChild(ccTurn(session, 1), id)
	}
	narrow := func(turnID string) {
		t.Helper()
		st, b := s.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}})
		if st != http.StatusOK {
			t.Fatalf("narrowing %s: %d %s", turnID, st, b)
		}
	}

	// A sub-agent's turn, ended by the agent's SubagentStop.
	const sub = "sess-child-sub"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", sub, ws))
	kid := task(sub, "toolu_task_sub")
	if got := write(sub, "toolu_s1"); !allowed(got) {
		t.Fatalf("control: a Write in the sub-agent's turn: %s", got)
	}
	narrow(kid)
	if got := write(sub, "toolu_s2"); allowed(got) {
		t.Fatalf("a Write after the admin narrowed the sub-agent's turn: %s", got)
	}
	rt.hookHTTP(ccPayload(t, "subagent_stop", sub, ws))
	if got := write(sub, "toolu_s3"); allowed(got) {
		t.Errorf("the admin's narrowing ended with the agent's SubagentStop: %s", got)
	}
	rt.hookHTTP(ccPayload(t, "stop", sub, ws))
	if got := write(sub, "toolu_s4"); allowed(got) {
		t.Errorf("the session's next turn, after the agent's SubagentStop and Stop: %s", got)
	}

	// A child the agent started over REST, completed over REST right
	// after a Stop of its own.
	const rest = "sess-child-rest"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", rest, ws))
	if st, b := rt.Request("POST", "/v1/turns", map[string]any{"turn_id": "agent-kid", "workspace_id": "ws-cc", "parent_turn_id": ccTurn(rest, 1)}); st != http.StatusCreated {
		t.Fatalf("the agent's child: %d %s", st, b)
	}
	if got := write(rest, "toolu_r1"); !allowed(got) {
		t.Fatalf("control: a Write in the agent's child: %s", got)
	}
	narrow("agent-kid")
	if got := write(rest, "toolu_r2"); allowed(got) {
		t.Fatalf("a Write after the admin narrowed the agent's child: %s", got)
	}
	if st, b := rt.Request("POST", "/v1/turns/agent-kid/complete", nil); st != http.StatusOK {
		t.Fatalf("completing the agent's child: %d %s", st, b)
	}
	rt.hookHTTP(ccPayload(t, "stop", rest, ws))
	if got := write(rest, "toolu_r3"); allowed(got) {
		t.Errorf("the admin's narrowing ended with the agent's REST complete and Stop: %s", got)
	}

	// Control: the admin narrows the session's turn while a sub-agent
	// runs (the narrowing bounds the sub-agent's turn too), then widens it
	// again: once the sub-agent stops, the Write is allowed.
	const again = "sess-child-again"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", again, ws))
	task(again, "toolu_task_again")
	narrow(ccTurn(again, 1))
	if got := write(again, "toolu_a1"); allowed(got) {
		t.Fatalf("a Write in the sub-agent's turn after the admin narrowed the session's: %s", got)
	}
	if st, b := s.Request("POST", "/v1/turns/"+ccTurn(again, 1)+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}}); st != http.StatusOK {
		t.Fatalf("widening again: %d %s", st, b)
	}
	rt.hookHTTP(ccPayload(t, "subagent_stop", again, ws))
	if got := write(again, "toolu_a2"); !allowed(got) {
		t.Errorf("control: a Write after the admin widened the session's turn again and the sub-agent stopped: %s", got)
	}

	// Control: the admin narrows a sub-agent's turn, which stops, then
	// widens the session's turn: the Write is allowed again.
	const widened = "sess-child-widened"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", widened, ws))
	narrow(task(widened, "toolu_task_widened"))
	rt.hookHTTP(ccPayload(t, "subagent_stop", widened, ws))
	if got := write(widened, "toolu_v1"); allowed(got) {
		t.Errorf("a Write after the agent's SubagentStop: %s", got)
	}
	if st, b := s.Request("POST", "/v1/turns/"+ccTurn(widened, 1)+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}}); st != http.StatusOK {
		t.Fatalf("widening the session's turn: %d %s", st, b)
	}
	if got := write(widened, "toolu_v2"); !allowed(got) {
		t.Errorf("control: a Write after the admin widened the session's turn again: %s", got)
	}

	// Control: a session whose sub-agent nobody changed.
	const plain = "sess-child-plain"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", plain, ws))
	task(plain, "toolu_task_plain")
	rt.hookHTTP(ccPayload(t, "subagent_stop", plain, ws))
	if got := write(plain, "toolu_p1"); !allowed(got) {
		t.Errorf("control: a Write after a sub-agent nobody changed stopped: %s", got)
	}
	rt.hookHTTP(ccPayload(t, "stop", plain, ws))
	if got := write(plain, "toolu_p2"); !allowed(got) {
		t.Errorf("control: the plain session's next turn: %s", got)
	}
}

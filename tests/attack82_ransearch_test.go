package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestAttack82RanReportSkipsResourceRecheck (eighty-second review, a
// variant the fiftieth review's fix missed): with "ask": "hold", an
// allowing answer is followed by the call's decision again, "so a change of
// the turn's permissions since the request still denies it" (README, Claude
// Code as a client). The fiftieth review's fix made Decide re-judge a call
// the runtime reported as run (the agent, holding the hook's credential and
// reading the tool_use id of its next call in the transcript, posts that
// call's PostToolUse before Claude Code asks); but that re-judgement is the
// policy table's and the mode's (State.revoked). The resource checks of the
// retry (files resolved again, host rules, a web search's allowed_domains:
// urlLessRefusal, the seventy-ninth review's fix) are made by
// Engine.checkResources, which still takes a call in State.Ran as "decided
// before: replayed as recorded" and skips them, a refusal included.
//
// Steps: the session's project selects profile "open" (network on, no host
// rule; the table asks for network calls). The agent posts the PostToolUse
// of its next WebSearch (allowed_domains ["evil.example"]) before its
// PreToolUse; the call is held, its request open. An admin changes the
// turn to "noevil", which denies evil.example (the table still asks: the
// open request is not cancelled, judgeOpen judges no search domains where
// the table asks). A person allows the request. The control call, not
// reported first, is then denied ("now deny it", host_not_allowed); the
// attack call is answered allow, and Claude Code searches the host the
// admin denied.
//
// Fix: in checkResources, a call in State.Ran that has not been decided
// finally (no denial, not started or consumed, its request not open) is
// judged like any retried call (its resource checks made, a refusal its
// answer); only a denial, a start or an open request replays as recorded.
// And judgeOpen could apply urlLessRefusal to a recorded search's domains
// (as it applies the static host check to a recorded origin), so that the
// admin's change cancels the request instead of leaving it to a person.
func TestAttack82RanReportSkipsResourceRecheck(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	admin := ccProfileServer(t, ws, openNoEvil, "open", map[string]any{"ask": "hold", "hold_wait": "60s"})
	rt := roAs(admin, roCreate(t, admin, "claude-a82", "runtime", "ws-cc"))
	const session = "sess-a82-ransearch"
	t1 := ccTurn(session, 1)
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))

	search := func(event, id string) []byte {
		fields := map[string]any{"tool_use_id": id, "hook_event_name": event,
			"tool_input": map[string]any{"query": "what the agent read", "allowed_domains": []string{"evil.example"}, "blocked_domains": []string{}}}
		if event == "PostToolUse" {
			fields["tool_response"] = map[string]any{"results": []any{}}
		}
		return ccEdit(t, ccPayload(t, "pre_websearch", session, ws), fields)
	}
	calls := []string{"toolu_a82_ctl", "toolu_a82_atk"}
	// The agent's forged report of its next call, before Claude Code's
	// PreToolUse for it.
	rt.hookHTTP(search("PostToolUse", calls[1]))

	events := admin.subscribe("turn_id="+t1, "")
	answers := map[string]chan string{}
	for _, id := range calls {
		ch := make(chan string, 1)
		answers[id] = ch
		p := search("PreToolUse", id)
		go func() {
			out, errOut, code := hookCommand(t, admin.URL, rt.Token, p)
			ch <- fmt.Sprintf("%s%s(exit %d)", out, errOut, code)
		}()
		events.NextOf("turn/permission/request/opened")
	}
	// The admin denies evil.example; the table still asks. The change
	// cancels both requests, as it does a pending fetch of that host (the
	// approver's allow then finds them resolved); a request left open
	// would be allowed by the approver and refused on its retry.
	admin.JSON("POST", "/v1/turns/"+t1+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": "noevil"}}, http.StatusOK, nil)
	for _, id := range calls {
		code, body := admin.Do("POST", "/v1/approvals/"+requestIDOf(t, admin, t1, id)+"/respond", map[string]any{"resolution": "allow_once"})
		if code != http.StatusOK && (code != http.StatusConflict || !strings.Contains(string(body), "cancelled")) {
			t.Fatalf("the approver's allow of %s: %d %s", id, code, body)
		}
	}
	ctl, atk := <-answers[calls[0]], <-answers[calls[1]]
	if !strings.Contains(ctl, `"permissionDecision":"deny"`) {
		t.Fatalf("control: a search kept to evil.example approved after the admin denied it: %s", ctl)
	}
	if !strings.Contains(atk, `"permissionDecision":"deny"`) {
		t.Errorf("the search the agent reported as run before asking is allowed though the turn now denies evil.example: %s (control: %s)", atk, ctl)
	}
}

// TestAttack82ChangeLeavesDeniedSearchOpen (eighty-second review, low): a
// profile change "cancels the pending requests the new snapshot denies",
// and since the seventy-ninth review "the domains are recorded, so a
// profile change judges an open search by them" (README). judgeOpen
// applies them only through asIsRefusal, where the new table allows the
// call outright; where it asks (the default), a pending search kept to a
// host the new profile denies by name stays open and is put to a person,
// while a pending fetch of that host is cancelled by the same change. (The
// retry of a call not reported as run still refuses it after an allow;
// TestAttack82RanReportSkipsResourceRecheck is the one that is.)
func TestAttack82ChangeLeavesDeniedSearchOpen(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--profiles", writeProfiles(t, openNoEvil))
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "cs", "workspace_id": "ws", "thread_id": "th-cs",
		"permission_profile": map[string]any{"profile": "open"}, "workspace_root": root}, http.StatusCreated, nil)
	fetch := map[string]any{"url": "https://evil.example/"}
	search := map[string]any{"query": "q", "allowed_domains": []string{"evil.example"}}
	if d := runtime.decide("cs", "f", "web_fetch", fetch); d.Decision != "ask" {
		t.Fatalf("the fetch under open: %+v, want ask", d)
	}
	if d := runtime.decide("cs", "s", "web_search", search); d.Decision != "ask" {
		t.Fatalf("the search under open: %+v, want ask", d)
	}
	s.JSON("POST", "/v1/turns/cs/permissions", map[string]any{"permission_profile": map[string]any{"profile": "noevil"}}, http.StatusOK, nil)
	if d := runtime.decide("cs", "f", "web_fetch", fetch); d.Decision != "deny" {
		t.Fatalf("control: the pending fetch of evil.example after the change denying it: %s (%s), want cancelled", d.Decision, d.Reason)
	}
	if d := runtime.decide("cs", "s", "web_search", search); d.Decision != "deny" {
		t.Errorf("the pending search kept to evil.example after the change denying it is %s (%s): left open for a person, not cancelled", d.Decision, d.Reason)
	}
}

// openNoEvil: "open" has the network on with no host rules; "noevil" the
// same with evil.example denied.
const openNoEvil = `
[permissions.open]
extends = ":workspace"
[permissions.open.network]
enabled = true

[permissions.noevil]
extends = ":workspace"
[permissions.noevil.network]
enabled = true
[permissions.noevil.network.domains]
"*" = "allow"
"evil.example" = "deny"
`

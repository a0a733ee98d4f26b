package tests

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttack16HoldPastHookTimeout: a call held for an approver (ask =
// "hold", or Claude Code's auto mode) is denied "no answer" once hold_wait
// has passed, and the operator sets hold_wait below the hook's timeout, at
// which Claude Code runs the call (an http hook's timeout is a
// non-blocking error). But hold_wait was counted from the moment the call
// was decided, not from the hook's arrival, and the agent, holding the
// runtime credential, made the decision itself wait: a WebFetch of its own
// in the same session whose host never answers held the turn's lock for
// the lookup (--dns-timeout), and the held call, queued behind it, was
// answered that much after hold_wait, past the hook's timeout. Claude
// Code's timeout is modelled as hold_wait plus three seconds, more than
// the lookup's bound is not. Controls: the same held call with nothing in
// front of it is answered deny within that timeout, and one an approver
// allows meanwhile is allowed.
func TestAttack16HoldPastHookTimeout(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	log := &queryLog{PacketConn: pc}
	dns := serveDNS(log, nil, "slow.example.org")
	ws := workspace(t)
	const hold = 4 * time.Second
	s := ccServer(t, ws, "supervised", map[string]any{"hold_wait": hold.String()}, "--dns-server", dns, "--dns-timeout", "6s")
	rt := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	const session = "sess-hold-deadline"
	auto := func(name string, fields map[string]any) []byte {
		fields["permission_mode"] = "auto"
		return ccEdit(t, ccPayload(t, name, session, ws), fields)
	}
	rt.hookHTTP(auto("user_prompt_submit", map[string]any{}))
	// claudeCode posts a hook as Claude Code does, giving up at hold_wait
	// plus three seconds; "" when it gave up (the call runs).
	claudeCode := func(body []byte) string {
		req, _ := http.NewRequest("POST", s.URL+"/v1/hooks/claude-code", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+rt.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: hold + 3*time.Second}).Do(req)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return ""
		}
		return string(b)
	}
	bash := func(id string) []byte { return auto("pre_bash", map[string]any{"tool_use_id": id}) }

	if got := claudeCode(bash("toolu_alone")); !strings.Contains(got, `"permissionDecision":"deny"`) || !strings.Contains(got, "no answer") {
		t.Fatalf("control: a held call nobody answers: %q", got)
	}
	events := s.subscribe("turn_id="+ccTurn(session, 1), "")
	answer := make(chan string, 1)
	go func() { answer <- claudeCode(bash("toolu_answered")) }()
	opened := events.NextOf("turn/permission/request/opened")
	req, _ := opened.Params["request"].(map[string]any)
	s.respond(str(req["request_id"]), "allow_once")
	if got := <-answer; !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: a held call an approver allows: %q", got)
	}

	// The agent's own WebFetch holds the turn while its host is looked up.
	go rt.Do("POST", "/v1/hooks/claude-code", auto("pre_webfetch", map[string]any{"tool_use_id": "toolu_slow",
		"tool_input": map[string]any{"url": "https://slow.example.org/", "prompt": "x"}}))
	pollUntil(t, "the agent's lookup under way", func() bool { return log.asked("slow.example.org") > 0 })
	if got := claudeCode(bash("toolu_behind")); !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Errorf("a held call behind the agent's slow lookup: %q (Claude Code gave up and ran it)", got)
	}
}

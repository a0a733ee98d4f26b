package tests

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttack67AnswerQueuedBehindAgentLookups: a person's answer to an
// approval is a command on the approval's turn, run under the turn's lock
// within --command-timeout's bound (10s with the local store; api/server.go
// run). A WebFetch the policy allows has its host looked up while the
// decision holds that lock (domain/engine/load.go load -> check.go
// checkResources -> sandbox DecisionChecker.CheckURL, bounded by
// --dns-timeout with context.Background, not the request's context). The
// sixteenth review bounded the hook's own wait behind such lookups (a
// PreToolUse's deadline from its arrival); the person's answer has no such
// care. The agent, holding the runtime credential, sends a handful of
// WebFetch calls in the same session whose hosts never answer (a domain of
// its own with a silent name server): each holds the turn's lock for the
// lookup's bound, and the person's answer, queued behind them, waits
// until --command-timeout and is refused 503. The agent keeps the queue
// full for as long as it likes (a few requests of its quarter of the
// connections): the person cannot answer the approval — nor any other in
// the turn — and the held call is denied "no answer" at hold_wait, or, with
// the approval the person wanted to deny left open, stays pending for the
// agent's retries.
//
// Control: the same answer with no lookup in front of it is answered 200
// and the held call allowed.
//
// Severity: medium (the approval channel of one turn blocked at will by
// the agent; the held call fails closed).
//
// Suggested fix: look a host up outside the turn's lock (resolve in
// prepare, re-check the snapshot under the lock), or let a person's
// command (respond, interrupt) go before the agent's queued decisions (a
// lock with priority for approvers), or bound the lookups one turn has in
// flight to one.
func TestAttack67AnswerQueuedBehindAgentLookups(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	log := &queryLog{PacketConn: pc}
	const lookups = 10
	var silent []string
	for i := range lookups {
		silent = append(silent, fmt.Sprintf("slow%d.example.org", i))
	}
	dns := serveDNS(log, nil, silent...)
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", map[string]any{"hold_wait": "2m"}, "--dns-server", dns, "--dns-timeout", "4s")
	rt := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	person := roAs(s, roCreate(t, s, "person", "approver"))
	const session = "sess-answer-lock"
	auto := func(name string, fields map[string]any) []byte {
		fields["permission_mode"] = "auto"
		return ccEdit(t, ccPayload(t, name, session, ws), fields)
	}
	rt.hookHTTP(auto("user_prompt_submit", map[string]any{}))
	claudeCode := func(body []byte) string {
		req, _ := http.NewRequest("POST", s.URL+"/v1/hooks/claude-code", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+rt.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: 3 * time.Minute}).Do(req) // a guard against a hang
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	bash := func(id string) []byte { return auto("pre_bash", map[string]any{"tool_use_id": id}) }
	events := s.subscribe("turn_id="+ccTurn(session, 1), "")
	t.Cleanup(events.Close)
	held := func(id string) (requestID string, answer chan string) {
		answer = make(chan string, 1)
		go func() { answer <- claudeCode(bash(id)) }()
		opened := events.NextOf("turn/permission/request/opened")
		req, _ := opened.Params["request"].(map[string]any)
		return str(req["request_id"]), answer
	}

	// Control: the person answers a held call at once.
	id, answer := held("toolu_control")
	if st, b := person.Do("POST", "/v1/approvals/"+id+"/respond", map[string]string{"resolution": "allow_once"}); st != http.StatusOK {
		t.Fatalf("control: the person's answer: %d %s", st, b)
	}
	if got := <-answer; !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: the held call the person allowed: %q", got)
	}

	// The attack: a held call the person wants to deny, and the agent's
	// WebFetch calls of hosts that never answer, each holding the turn.
	id, answer = held("toolu_attack")
	for i := range lookups {
		go rt.Do("POST", "/v1/hooks/claude-code", auto("pre_webfetch", map[string]any{"tool_use_id": fmt.Sprintf("toolu_slow%d", i),
			"tool_input": map[string]any{"url": fmt.Sprintf("https://slow%d.example.org/", i), "prompt": "x"}}))
	}
	// Two hosts asked: the first lookup has ended, and the calls sent
	// with it have long reached the turn's lock, queued.
	pollUntil(t, "the agent's second lookup under way", func() bool {
		n := 0
		for _, h := range silent {
			if log.asked(h) > 0 {
				n++
			}
		}
		return n >= 2
	})
	st, b := person.Do("POST", "/v1/approvals/"+id+"/respond", map[string]string{"resolution": "deny"})
	if st != http.StatusOK {
		t.Errorf("the person's answer behind the agent's lookups: %d %s (the approval cannot be answered while the agent keeps the turn's lock busy)", st, b)
	}
	_ = answer
}

package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"turnstile/api"
)

// TestRevokedCredentialLongPollAnswersNothing: an approver's long poll on
// a request (GET /v1/approvals/{id}?wait=) opened while its credential was
// valid must not carry the resolution made after the revocation: it ends
// with credential_revoked (401). Another approver's poll on the same
// request, whose credential is kept, gets the resolution (the control).
func TestRevokedCredentialLongPollAnswersNothing(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "lp", "workspace_id": "ws-lp", "workspace_root": s.root,
		"permission_profile": map[string]any{"mode": "supervised"}}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	st, b := s.do("POST", "/v1/turns/lp/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make"}})
	var d struct {
		Decision string `json:"decision"`
		Request  struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Decision != "ask" || d.Request.RequestID == "" {
		t.Fatalf("decide: %d %s", st, b)
	}
	id := d.Request.RequestID
	token := func(name string) string { return s.credential(name, "approver") }
	type answer struct {
		status int
		body   string
	}
	poll := func(tok string) <-chan answer {
		out := make(chan answer, 1)
		who := s.as(tok)
		go func() {
			st, b := who.do("GET", "/v1/approvals/"+id+"?wait=60s&turn_id=lp", nil)
			out <- answer{st, string(b)}
		}()
		return out
	}
	alice, bob := poll(token("alice")), poll(token("bob"))
	for deadline := time.Now().Add(time.Minute); s.metric("turnstile_approval_waiters") < 2; {
		// A poll that answered before the resolution never waits: say
		// what it answered rather than wait out the deadline.
		select {
		case a := <-alice:
			t.Fatalf("alice's poll answered before anything was resolved: %d %s", a.status, a.body)
		case a := <-bob:
			t.Fatalf("bob's poll answered before anything was resolved: %d %s", a.status, a.body)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the two polls never waited")
		}
		time.Sleep(5 * time.Millisecond) // polling a gauge, not standing in for it
	}
	if st, b := s.do("POST", "/v1/credentials/alice/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	if st, b := s.do("POST", "/v1/approvals/"+id+"/respond", map[string]any{"resolution": "allow_once"}); st != http.StatusOK {
		t.Fatalf("respond: %d %s", st, b)
	}
	if a := <-alice; a.status != http.StatusUnauthorized || !strings.Contains(a.body, "credential_revoked") {
		t.Errorf("the revoked approver's poll: %d %s, want 401 credential_revoked", a.status, a.body)
	}
	if a := <-bob; a.status != http.StatusOK || !strings.Contains(a.body, `"allow_once"`) {
		t.Errorf("the kept approver's poll: %d %s, want the resolution (control)", a.status, a.body)
	}
}

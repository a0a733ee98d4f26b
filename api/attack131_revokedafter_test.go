package api_test

import (
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/api"
)

// revokedAfterSetup starts a supervised turn, has it ask, and returns the
// server, the request id and the position the ask answered with.
func revokedAfterSetup(t *testing.T) (*sseServer, string, uint64) {
	t.Helper()
	s := startSSE(t, api.Config{}, 0)
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "ra", "workspace_id": "ws-ra", "workspace_root": s.root,
		"permission_profile": map[string]any{"mode": "supervised"}}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	st, b := s.do("POST", "/v1/turns/ra/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make"}})
	var d struct {
		Decision string `json:"decision"`
		Position string `json:"position"`
		Request  struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Decision != "ask" || d.Request.RequestID == "" {
		t.Fatalf("decide: %d %s", st, b)
	}
	pos, err := strconv.ParseUint(d.Position, 10, 64)
	if err != nil {
		t.Fatalf("setup: position %q is not a number", d.Position)
	}
	return s, d.Request.RequestID, pos
}

// waitingAfter reports whether a request of this process is waiting in
// awaitAfter (the in-process server's goroutines).
func waitingAfter() bool {
	buf := make([]byte, 8<<20)
	n := runtime.Stack(buf, true)
	for _, g := range strings.Split(string(buf[:n]), "\n\n") {
		if strings.Contains(g, "api.(*Server).awaitAfter") {
			return true
		}
	}
	return false
}

// TestAttack131_RevokedAfterReadAnswers: the README says a revoked
// credential's open connections stop within a second: an event stream
// ends credential_revoked, a long poll (GET /v1/approvals/{id}?wait=) ends
// credential_revoked and "what it waited for is not given to a credential
// revoked meanwhile". The same read with ?after=<position> instead of
// ?wait= waits too (up to 5 s, MaxAfterWait, for the read models to reach
// that position) and is never authenticated again: the agent's runtime
// credential, revoked while the read waits, is answered 200 with what was
// done after its revocation (here the approver's resolution). The agent
// picks the position itself: a position a little ahead of the last one it
// was given is reached by the next events. Wanted: a read that waited is
// authenticated again before it answers (credential_revoked), as ?wait=.
// Control: the kept credential's identical read gets the resolution.
func TestAttack131_RevokedAfterReadAnswers(t *testing.T) {
	s, id, pos := revokedAfterSetup(t)
	agent, kept := s.as(s.credential("agent", "runtime")), s.as(s.credential("agent2", "runtime"))
	// The revocation and the resolution come next: a position two past the
	// ask's is reached by the resolution at the latest.
	ahead := strconv.FormatUint(pos+2, 10)
	type answer struct {
		status int
		body   string
	}
	read := func(who *sseServer) <-chan answer {
		out := make(chan answer, 1)
		go func() {
			st, b := who.do("GET", "/v1/approvals/"+id+"?turn_id=ra&after="+ahead, nil)
			out <- answer{st, string(b)}
		}()
		return out
	}
	revoked := read(agent)
	for i := 0; !waitingAfter(); i++ {
		select {
		case a := <-revoked:
			t.Fatalf("setup: the read answered before it waited: %d %s", a.status, a.body)
		default:
		}
		if i > 20000 {
			t.Fatal("setup: the read never waited")
		}
		time.Sleep(time.Millisecond) // polling a state, not standing in for it
	}
	if st, b := s.do("POST", "/v1/credentials/agent/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	if st, b := s.do("POST", "/v1/approvals/"+id+"/respond", map[string]any{"resolution": "allow_once"}); st != http.StatusOK {
		t.Fatalf("respond: %d %s", st, b)
	}
	if st, b := agent.do("GET", "/v1/turns/ra", nil); st != http.StatusUnauthorized {
		t.Fatalf("setup: the revoked credential's new request: %d %s, want 401", st, b)
	}
	a := <-revoked
	if a.status == http.StatusOK {
		t.Errorf("the runtime credential's read, revoked while it waited on ?after=, was answered %d with what happened after the revocation: %s", a.status, a.body)
	}
	t.Run("control: a credential kept gets the same read answered", func(t *testing.T) {
		if c := <-read(kept); c.status != http.StatusOK || !strings.Contains(c.body, `"allow_once"`) {
			t.Errorf("the kept credential's read: %d %s, want the resolution", c.status, c.body)
		}
	})
}

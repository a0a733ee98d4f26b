package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"turnstile/api"
)

// TestBodyAfterRevocationRefused: a request authenticated when its header
// block came, whose body comes after its credential was revoked, does
// nothing: a decision and a JSON-RPC call answer credential_revoked, and a
// Claude Code PreToolUse hook answers deny with 200 (an http hook runs the
// call on any other answer). Control: the same slow requests with a kept
// credential are answered.
func TestBodyAfterRevocationRefused(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("t", 0, 1)
	agent := s.credential("slow", "runtime")
	kept := s.credential("kept", "runtime")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	// send starts a request whose body is held until release is called,
	// and returns its answer.
	send := func(token, path, body string) (release func(), answer func() (int, string)) {
		pr, pw := io.Pipe()
		req, _ := http.NewRequest("POST", s.url+path, pr)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(body))
		// The body goes only after the server's 100 Continue, which it
		// sends when the handler reads the body: past authentication.
		req.Header.Set("Expect", "100-continue")
		done := make(chan struct{})
		var st int
		var got string
		go func() {
			defer close(done)
			resp, err := client.Do(req)
			if err != nil {
				got = err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			st, got = resp.StatusCode, string(b)
		}()
		// The first byte is taken once the server has authenticated the
		// headers and reads the body.
		if _, err := pw.Write([]byte(body[:1])); err != nil {
			t.Fatal(err)
		}
		return func() { pw.Write([]byte(body[1:])); pw.Close() }, func() (int, string) { <-done; return st, got }
	}
	calls := []struct{ name, path, body string }{
		{"decision", "/v1/turns/t/decisions", `{"tool_call_id":"slow-1","tool_name":"exec_command","arguments":{"cmd":"ls"}}`},
		{"rpc", "/rpc", `{"jsonrpc":"2.0","id":1,"method":"turn/get","params":{"turn_id":"t"}}`},
		{"hook", "/v1/hooks/claude-code", `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"` + s.root + `","tool_name":"Bash","tool_input":{"command":"ls"}}`},
	}
	type pending struct {
		release func()
		answer  func() (int, string)
	}
	var slow, ctl []pending
	for _, c := range calls {
		r, a := send(agent, c.path, c.body)
		slow = append(slow, pending{r, a})
		r, a = send(kept, c.path, strings.ReplaceAll(c.body, "slow-1", "kept-1"))
		ctl = append(ctl, pending{r, a})
	}
	if st, b := s.do("POST", "/v1/credentials/slow/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	for i, c := range calls {
		slow[i].release()
		st, b := slow[i].answer()
		switch c.name {
		case "hook":
			if st != http.StatusOK || !strings.Contains(b, `"deny"`) || !strings.Contains(b, "revoked") {
				t.Errorf("%s with a body after the revocation: %d %s, want 200 with a deny", c.name, st, b)
			}
		default:
			if st != http.StatusUnauthorized || !strings.Contains(b, "credential_revoked") {
				t.Errorf("%s with a body after the revocation: %d %s, want 401 credential_revoked", c.name, st, b)
			}
		}
		ctl[i].release()
		if st, b := ctl[i].answer(); st != http.StatusOK || strings.Contains(b, "revoked") {
			t.Errorf("control: %s with a kept credential: %d %s", c.name, st, b)
		}
	}
}

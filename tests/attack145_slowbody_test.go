package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack145_ExecBodyAfterRevocationRuns (the hundred-and-forty-fifth
// review): `token revoke NAME` "is in force on the next request", and an
// exec of the credential that is running is killed (cancelOnRevocation,
// checked every second). A request is authenticated once, when its header
// block has arrived (auth), and its body is read afterwards, by the
// handler (decodeJSON): the agent, holding the runtime credential, sends
// the header block of an exec (Expect: 100-continue: the server's "100
// Continue" says the handler, past auth, is reading the body), keeps the
// body back, and sends it after the operator revoked the credential. The
// exec runs its command as the revoked credential (200, ran: true), and
// a command that finishes within the second before the first recheck is
// never killed. The agent can hold such requests open (one per request
// slot) for as long as the body's read timeout, and have them run after
// the revocation meant to stop it.
//
// Control: the same slow exec of a credential not revoked runs.
func TestAttack145_ExecBodyAfterRevocationRuns(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("t145-slow", "ws", "full_access", root)
	u, _ := url.Parse(s.URL)

	// slowExec sends the exec's header block, waits for the server's 100
	// Continue (the handler reads the body: auth is past), calls between,
	// then sends the body; it returns the answer.
	slowExec := func(token, callID, marker string, between func()) (int, map[string]any) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"tool_call_id": callID, "argv": []string{"/bin/sh", "-c", "echo ran > " + marker}})
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(60 * time.Second)) // a bound on a stuck exchange, not the assertion
		fmt.Fprintf(c, "POST /v1/turns/t145-slow/exec HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
			u.Host, token, len(body))
		br := bufio.NewReader(c)
		cont, err := http.ReadResponse(br, nil)
		if err != nil || cont.StatusCode != http.StatusContinue {
			t.Fatalf("setup: want 100 Continue before the body: %v %v", cont, err)
		}
		between()
		c.Write(body)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("the exec's answer: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		if out == nil {
			out = map[string]any{"raw": string(b)}
		}
		return resp.StatusCode, out
	}

	t.Run("control", func(t *testing.T) {
		tok := s.credential("agent-ok", "runtime")
		marker := filepath.Join(root, "control-ran")
		st, out := slowExec(tok, "c-control", marker, func() {})
		if _, err := os.Stat(marker); st != http.StatusOK || out["ran"] != true || err != nil {
			t.Fatalf("control: a slow exec of a valid credential: %d %v (marker: %v)", st, out, err)
		}
	})

	t.Run("attack", func(t *testing.T) {
		tok := s.credential("agent", "runtime")
		marker := filepath.Join(root, "attack-ran")
		st, out := slowExec(tok, "c-attack", marker, func() {
			if st, b := s.Do("POST", "/v1/credentials/agent/revoke", nil); st != http.StatusOK {
				t.Fatalf("revoke: %d %s", st, b)
			}
			// The revocation is in force: the credential is refused.
			if st, _ := roAs(s, tok).Do("GET", "/v1/turns/t145-slow", nil); st != http.StatusUnauthorized {
				t.Fatalf("setup: the revoked credential on the API: %d, want 401", st)
			}
		})
		_, err := os.Stat(marker)
		t.Logf("the exec whose body came after the revocation: %d ran=%v marker=%v", st, out["ran"], err == nil)
		if err == nil || out["ran"] == true {
			t.Errorf("an exec authenticated before its credential's revocation, whose body came after it, ran its command (%d %s; the command's file exists: %v): the credential is checked when the header block arrives, not when the command starts",
				st, strings.TrimSpace(fmt.Sprint(out["result"])), err == nil)
		}
	})
}

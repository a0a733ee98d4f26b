package tests

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttack64UnauthenticatedBodiesHoldEveryConnection: the API holds at
// most --max-connections connections (internal/connlimit). Past it, a new
// connection makes room only by closing one that is idle or silent past its
// grace; "connections carrying a request ... are never closed for another:
// what one credential holds in flight is bounded by the API"
// (connlimit.go's package comment; api/inflight.go withinRequests, a
// quarter of the connections per credential). A request that NO credential
// authenticates is bounded by nothing of the kind: POST /ui/session without
// an Authorization header reads its body (api/ui.go consoleSignIn ->
// decodeJSON), so a client that sends the headers with
// "Expect: 100-continue", takes the "100 Continue" and then sends no body
// holds a connection in StateActive for --read-timeout (a minute by
// default), and opens the next one when it ends. The agent — a local
// process with a shell beside the server in a full_access turn, no
// credential needed — fills every slot that way: every new connection is
// answered 503 server_busy, the person's approvals list, answers and
// console sign-in included (and an http-type Claude Code hook, which fails
// open on a 5xx, lets every tool call run unasked).
//
// Control: the same flood sent with the agent's own runtime credential
// (POST /v1/turns, Expect: 100-continue, no body) holds only its quarter of
// the connections (the rest are answered 429), and the person is answered.
//
// Severity: medium (availability of the approval channel and of the hook
// at will, for as long as the agent keeps reopening; needs no credential).
//
// Suggested fix: count the requests no credential authenticates against a
// bound of their own, as a credential's are (one shared share of the
// connections, e.g. a quarter, refusing 429 past it), or make connlimit
// evict the oldest connection whose request has no principal yet; and give
// a sign-in body a short read deadline of its own (8 KiB arrive at once).
func TestAttack64UnauthenticatedBodiesHoldEveryConnection(t *testing.T) {
	t.Parallel()
	const slots = 16
	s := StartServer(t, "", "--max-connections", "16", "--read-timeout", "1m")
	person := s.credential("person", "approver")
	agent := s.credential("agent", "runtime")
	addr := strings.TrimPrefix(s.URL, "http://")

	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	// hold opens a connection and sends a request's headers asking to
	// continue, and no body. It answers the first status line the server
	// sends: "100" while the handler waits for the body.
	hold := func(path, token string) (net.Conn, string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		req := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 64\r\nExpect: 100-continue\r\n"
		if token != "" {
			req += "Authorization: Bearer " + token + "\r\n"
		}
		if _, err := c.Write([]byte(req + "\r\n")); err != nil {
			c.Close()
			return nil, err.Error()
		}
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second)) // a guard against a hang, not an assertion
		line, err := bufio.NewReader(c).ReadString('\n')
		_ = c.SetReadDeadline(time.Time{})
		if err != nil {
			c.Close()
			return nil, err.Error()
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			c.Close()
			return nil, line
		}
		if f[1] != "100" {
			c.Close()
			return nil, f[1]
		}
		held = append(held, c)
		return c, f[1]
	}
	// asks is the person listing pending approvals on a new connection.
	asks := func() (int, string) {
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
		req, _ := http.NewRequest("GET", s.URL+"/v1/approvals?status=pending", nil)
		req.Header.Set("Authorization", "Bearer "+person)
		resp, err := fresh.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Status
	}

	if st, why := asks(); st != http.StatusOK {
		t.Fatalf("control: before any flood the person's list: %d %s", st, why)
	}

	// Control: the agent floods with its credential. It holds its share
	// (a quarter of the connections) and no more.
	got := 0
	for range slots {
		if c, _ := hold("/v1/turns", agent); c != nil {
			got++
		}
	}
	if got == 0 || got > slots/4 {
		t.Fatalf("control: the runtime credential held %d connections with unsent bodies, want 1..%d", got, slots/4)
	}
	waitUntil(t, "control: the person is answered while the runtime holds its share", func() (bool, string) {
		st, why := asks()
		return st == http.StatusOK, why
	})
	for _, c := range held {
		c.Close()
	}
	held = nil
	waitUntil(t, "the control's connections are given back", func() (bool, string) {
		st, why := asks()
		return st == http.StatusOK, why
	})

	// The attack: the same, with no credential at all, at the console's
	// sign-in and at the hook's endpoint (which reads a refused call's
	// body to answer a PreToolUse deny). Each first hold is retried until
	// the server holds it: the connections before may still be closing.
	// The requests without a credential share one bound, as one
	// credential's do: the rest are refused without their bodies read.
	// The same at the hook's endpoint with the runtime's credential: a call
	// past its bound is refused without its body read too.
	for _, at := range [][2]string{{"/ui/session", ""}, {"/v1/hooks/claude-code", ""}, {"/v1/hooks/claude-code", agent}} {
		path := at[0]
		waitUntil(t, "a request to "+path+" held", func() (bool, string) {
			c, why := hold(path, at[1])
			return c != nil, why
		})
		got = 1
		for range slots - 1 {
			if c, _ := hold(path, at[1]); c != nil {
				got++
			}
		}
		if got > slots/4 {
			t.Errorf("%d requests to %s (credential %q) held their bodies, want at most %d (the share a credential gets)", got, path, at[1], slots/4)
		}
		waitUntil(t, "the person is answered while requests to "+path+" without a credential hold their share", func() (bool, string) {
			st, why := asks()
			return st == http.StatusOK, why
		})
		for _, c := range held {
			c.Close()
		}
		held = nil
	}
}

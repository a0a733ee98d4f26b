package tests

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttack67UnreadBodyDiscardHoldsEveryConnection: the sixty-fourth
// review's fix bounds the requests without a credential whose body the
// handler reads (api/inflight.go withinUnauthenticated), and answers a hook
// call refused past a bound "without its body read" (api/hooks.go
// hookRefusedUnread). But the bound is held only while the handler runs:
// when a handler returns without reading a body of less than 256 KiB, and
// the client did not ask to continue, net/http reads the rest of it itself
// before it writes the answer (server.go chunkWriter.writeHeader's discard
// of up to maxPostHandlerReadBytes, "a number of clients send a full
// request before starting to read the response"). A client that sends a
// request's headers with "Content-Length: 64" and no "Expect:" header, and
// then no body, has its answer refused or written by the handler at once,
// its bound of requests in flight given back, and its connection held in
// StateActive for --read-timeout (a minute by default) while net/http waits
// for the body: connlimit never closes it for another
// (internal/connlimit oldestIdle takes only StateIdle and StateNew). The
// agent — no credential needed (GET /healthz authenticates nothing; the
// hook's endpoint refused unauthenticated), or with its own runtime
// credential past its bound — fills every slot that way: the person's
// approvals list, answers and console sign-in are refused 503 server_busy,
// and Claude Code's http hook, which treats a 5xx or a refused connection
// as non-blocking, lets every tool call run unasked.
//
// Control: the same requests sent whole (the body follows the headers) are
// answered and their connections left idle, which connlimit closes to make
// room: the person is answered.
//
// Severity: medium (the sixty-fourth review's finding, reopened by leaving
// out one header; needs no credential; lasts as long as the agent keeps
// reopening).
//
// Suggested fix: let no request's unread body be read after its handler
// returns: in budgetBodies (or observe), when the handler returns and the
// body has not reached EOF, set "Connection: close" on the answer (net/http
// then skips the discard, closeAfterReply) — or wrap the connection so that
// connlimit counts a connection whose handler returned as evictable; and
// bound a body's arrival (a read deadline per request, far below the
// minute of --read-timeout, for the bodies that are read).
func TestAttack67UnreadBodyDiscardHoldsEveryConnection(t *testing.T) {
	t.Parallel()
	const slots = 16
	s := StartServer(t, "", "--max-connections", "16", "--read-timeout", "10m")
	person := s.credential("person", "approver")
	agent := s.credential("agent", "runtime")
	addr := strings.TrimPrefix(s.URL, "http://")

	var held []net.Conn
	closeHeld := func() {
		for _, c := range held {
			c.Close()
		}
		held = nil
	}
	t.Cleanup(closeHeld)
	// send opens a connection and writes a request's headers declaring a
	// 64-byte body, with no "Expect:", and the body only when whole.
	send := func(method, path, token string, whole bool) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		req := method + " " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 64\r\n"
		if token != "" {
			req += "Authorization: Bearer " + token + "\r\n"
		}
		req += "\r\n"
		if whole {
			req += `{"hook_event_name":"PostToolUse","x":"` + strings.Repeat("a", 64-40) + `"}` // 64 bytes
		}
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		if whole {
			// An honest client reads its answer; the connection stays open,
			// idle between requests.
			_ = c.SetReadDeadline(time.Now().Add(20 * time.Second)) // a guard against a hang
			buf := make([]byte, 1)
			if _, err := io.ReadFull(c, buf); err != nil {
				t.Fatalf("control: %s %s sent whole was not answered: %v", method, path, err)
			}
			_ = c.SetReadDeadline(time.Time{})
		}
	}
	asks := func() (int, string) {
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
		req, _ := http.NewRequest("GET", s.URL+"/v1/approvals?status=pending", nil)
		req.Header.Set("Authorization", "Bearer "+person)
		resp, err := fresh.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Status + " " + string(b)
	}

	if st, why := asks(); st != http.StatusOK {
		t.Fatalf("control: before any flood the person's list: %d %s", st, why)
	}

	attacks := []struct{ method, path, token string }{
		{"POST", "/v1/hooks/claude-code", ""},    // refused unauthenticated, "without its body read"
		{"POST", "/v1/hooks/claude-code", agent}, // the runtime's credential, past its bound
		{"GET", "/healthz", ""},                  // no credential asked at all
	}
	for _, a := range attacks {
		// Control: the same requests sent whole leave idle connections,
		// which are closed to make room.
		for range slots {
			send(a.method, a.path, a.token, true)
		}
		waitUntil(t, "control: the person is answered beside whole requests to "+a.path, func() (bool, string) {
			st, why := asks()
			return st == http.StatusOK, why
		})
		closeHeld()
		waitUntil(t, "the control's connections are given back", func() (bool, string) {
			st, why := asks()
			return st == http.StatusOK, why
		})

		// The attack: the headers alone.
		for range slots {
			send(a.method, a.path, a.token, false)
		}
		ok := true
		waitUntilNoFatal(t, func() (bool, string) {
			st, why := asks()
			return st == http.StatusOK, why
		}, func(last string) {
			ok = false
			t.Errorf("%s %s (credential %q) with a declared body never sent: every connection held, the person refused: %s", a.method, a.path, a.token, last)
		})
		closeHeld()
		if ok {
			continue
		}
		waitUntil(t, "the attack's connections are given back", func() (bool, string) {
			st, why := asks()
			return st == http.StatusOK, why
		})
	}
}

// waitUntilNoFatal polls cond as waitUntil does and calls failed with its
// last report when the guard ends instead of stopping the test.
func waitUntilNoFatal(t testing.TB, cond func() (bool, string), failed func(last string)) {
	t.Helper()
	const guard = 15 * time.Second
	deadline := time.Now().Add(guard)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			failed(last)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

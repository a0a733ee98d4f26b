package tests

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestRecentTurnBytesEvictsLargeEndedTurns: `serve --recent-turn-bytes`
// bounds the stored bytes of the ended turns the server keeps in full, below
// --recent-turns: with a bound smaller than one turn, a turn is read from
// its stream as soon as it ends (its resolved request leaves the in-memory
// listing) and its view is served as before; with the default bound (the
// control) it stays held. A bound of 0 or below -1 is refused, changing
// nothing.
func TestRecentTurnBytesEvictsLargeEndedTurns(t *testing.T) {
	t.Parallel()
	run := func(extra ...string) (listed bool, view []byte) {
		s := StartServer(t, "", append([]string{"--recent-turns", "256"}, extra...)...)
		root := workspace(t)
		s.startTurn("big", "ws-b", "supervised", root)
		ask := s.decide("big", "c1", "exec_command", map[string]any{"cmd": "echo " + strings.Repeat("x", 2000)})
		s.respond(ask.Request.RequestID, "allow_once")
		s.JSON("POST", "/v1/turns/big/complete", nil, http.StatusOK, nil)
		st, body := s.Request("GET", "/v1/approvals?status=all", nil)
		if st != http.StatusOK {
			t.Fatalf("GET /v1/approvals: %d %s", st, body)
		}
		st, view = s.Request("GET", "/v1/turns/big", nil)
		if st != http.StatusOK {
			t.Fatalf("GET /v1/turns/big: %d %s", st, view)
		}
		return bytes.Contains(body, []byte(ask.Request.RequestID)), view
	}
	// (TestOldTurnServedFromItsStream compares a view held and read
	// from its stream; here both servers must answer with it.)
	served := func(view []byte) bool {
		return bytes.Contains(view, []byte(`"status":"completed"`)) && bytes.Contains(view, []byte(`"security_snapshot":{`))
	}
	heldListed, heldView := run()
	if !heldListed || !served(heldView) {
		t.Fatalf("control: with the default bound the ended turn is not held (its request listed: %v) or not served", heldListed)
	}
	evictedListed, evictedView := run("--recent-turn-bytes", "1024")
	if evictedListed {
		t.Fatal("an ended turn larger than --recent-turn-bytes is still held in full")
	}
	if !served(evictedView) {
		t.Errorf("the evicted turn's view is not served: %.300s", evictedView)
	}
	for _, v := range []string{"0", "-2"} {
		_, stderr, code := runCLI(t, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--recent-turn-bytes", v)
		if code == 0 || !strings.Contains(stderr, "--recent-turn-bytes must be positive or -1") {
			t.Errorf("--recent-turn-bytes %s: exit %d, %s", v, code, stderr)
		}
	}
}

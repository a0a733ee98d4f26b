package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestAttack153_BigTurnDefeatsAuditVerify: the agent runtime's credential
// makes its own turn large: about 400 allowed decisions of a 120 KiB
// command each (a turn's stored events may take --max-open-turn-bytes,
// 256 MiB; the stored decision repeats the command, ~365 KB an event).
// `turnstile audit verify TURN` and `turnstile replay TURN` fetch the
// events with limit=10000 in one page, whose answer (~140 MB) is past the
// auditor's share of --max-body-memory (half of 256 MiB): the server
// answers 503 server_busy, every time, and the CLI neither retries nor asks
// for a smaller page. The turn's record, hash chain intact (the server's
// own walk, `audit verify --all`, says so), can never be verified or
// replayed on its own by the auditor's tools (review 153).
//
// The control is a small turn of the same shape, which verifies and
// replays.
func TestAttack153_BigTurnDefeatsAuditVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("fills ~140 MB of events")
	}
	s := StartServer(t, "")
	rt := roAs(s, roCreate(t, s, "agent153b", "runtime"))
	root := workspace(t)
	fill := func(id string, n int) {
		t.Helper()
		rt.startTurn(id, "ws153b", "full_access", root)
		cmd := "echo " + strings.Repeat("a", 120<<10)
		for i := range n {
			body := map[string]any{"tool_call_id": fmt.Sprintf("c%d", i), "tool_name": "exec_command", "arguments": map[string]any{"command": cmd}}
			if st, out := rt.Do("POST", "/v1/turns/"+id+"/decisions", body); st != http.StatusOK {
				t.Fatalf("decision %d of %s: %d %.300s", i, id, st, out)
			}
		}
	}
	verify := func(id string) {
		t.Helper()
		if o, e, code := s.CLI("audit", "verify", id); code != 0 || !strings.Contains(o, "every hash chain intact") {
			t.Errorf("audit verify %s over an intact chain: exit %d\nstdout %s\nstderr %s", id, code, o, e)
		}
		if o, e, code := s.CLI("replay", id); code != 0 {
			t.Errorf("replay %s: exit %d\nstdout %.300s\nstderr %s", id, code, o, e)
		}
	}

	// Control: a small turn verifies and replays.
	fill("big153-control", 3)
	verify("big153-control")

	// Attack: the same turn, large.
	fill("big153", 400)
	// The chain is intact: the server's own walk says so.
	if o, e, code := s.CLI("audit", "verify", "--all", "--quiet"); code != 0 || !strings.Contains(o, "every hash chain intact") {
		t.Fatalf("audit verify --all: exit %d\nstdout %s\nstderr %s", code, o, e)
	}
	verify("big153")
}

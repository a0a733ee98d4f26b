package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAttack153_DeepKeptFieldBreaksAudit: the agent runtime's credential
// starts a turn over JSON-RPC with a turn/start field kept as sent
// (capabilities, input, sandbox_policy, …) nested close to encoding/json's
// limit of 10,000 levels (20 KB, well under maxKeptBytes). The server
// accepts it and stores it in turn.started; but every page of
// GET /v1/turns/{id}/events wraps the payload in four more levels, so the
// auditor's `turnstile audit verify TURN` and `turnstile replay TURN`
// cannot decode the answer: the record of the agent's own turn can no
// longer be verified or replayed by the auditor's tools, although its
// hash chain is intact (review 153).
//
// The control is the same turn/start with a shallow value: it verifies and
// replays. The attack passes once the server refuses the deep value
// (nothing appended) or the tools read it.
func TestAttack153_DeepKeptFieldBreaksAudit(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	rt := roAs(s, roCreate(t, s, "agent153", "runtime"))
	root := t.TempDir()
	start := func(id string, depth int) (int, []byte) {
		nested := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		body := `{"jsonrpc":"2.0","id":1,"method":"turn/start","params":{"turn_id":"` + id +
			`","workspace_id":"ws153","thread_id":"th","workspace_root":"` + root + `","capabilities":` + nested + `}}`
		return rt.Request("POST", "/rpc", body)
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

	// Control: a shallow kept value is stored, verified and replayed.
	if st, out := start("deep153-control", 8); st != http.StatusOK || strings.Contains(string(out), `"error"`) {
		t.Fatalf("control turn/start: %d %s", st, out)
	}
	verify("deep153-control")

	// Attack: 9,998 levels (the request itself is at encoding/json's
	// 10,000-level limit, so the server decodes it).
	st, out := start("deep153", 9998)
	if st != http.StatusOK {
		t.Fatalf("deep turn/start: HTTP %d %s", st, out)
	}
	var a struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("deep turn/start answer: %v", err)
	}
	if a.Error != nil {
		// Refused: nothing may have been appended.
		if st, _ := s.Request("GET", "/v1/turns/deep153/events", nil); st != http.StatusNotFound {
			t.Fatalf("deep turn/start refused (%d) but its turn has events (HTTP %d)", a.Error.Code, st)
		}
		return
	}
	verify("deep153")
}

package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"turnstile/api"
)

// TestAttack43StartQuotaConfirmsOtherWorkspaceTurnID (forty-third review,
// low): the forty-first fix validates a start whole before telling whether
// its id is taken, "so a start that cannot succeed is the same answer for a
// taken id and a free one" (README). But the open-turns quota is checked
// before the start is validated, and only for an id no turn holds
// (startWithinQuota: `!exists && overQuota`). A ws1 runtime at its quota
// (it fills it itself, starting its own turns) that starts an invalid turn
// (no such profile) is answered 429 quota_exceeded for a free id and 400
// for an id a ws2 turn holds: another workspace's turn ids, one request
// each, appending nothing.
//
// Fixed would look like: check the quota after the start is validated and
// before the conflict (or for taken ids too), so an invalid start is a 400
// either way, and a valid one of a taken id answers what a free one would
// (or: a scoped credential's start of another workspace's id answers as a
// free id's).
//
// Controls: under the quota both probes answer the same 400; the quota is
// in force (a valid start of a free id past it is a 429).
func TestAttack43StartQuotaConfirmsOtherWorkspaceTurnID(t *testing.T) {
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxOpenTurns = 2 })
	root := t.TempDir()
	as := func(token, method, path string, body any) (int, string) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, s.url+path, rd)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		var e struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(out, &e)
		return resp.StatusCode, e.Error.Code
	}
	const secret = "acme-merger-2027"
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": secret, "workspace_id": "ws2", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
		t.Fatalf("start the ws2 turn: %d %s", st, b)
	}
	agent := s.credential("ws1-agent", "runtime", "ws1")
	start := func(id string, profile map[string]string) (int, string) {
		return as(agent, "POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws1", "thread_id": "th",
			"permission_profile": profile, "workspace_root": root})
	}
	bad := map[string]string{"profile": "no-such-profile"}
	good := map[string]string{"mode": "supervised"}

	// Control: under the quota, the fix holds.
	if st, code := start("ws1-own-1", good); st != http.StatusCreated {
		t.Fatalf("control: the ws1 runtime's own start: %d %s", st, code)
	}
	ts, tc := start(secret, bad)
	fs, fc := start("no-such-turn-43", bad)
	if ts != fs || tc != fc || ts != http.StatusBadRequest {
		t.Fatalf("control: under the quota, invalid starts of a taken and a free id answer %d %s and %d %s, want one 400", ts, tc, fs, fc)
	}

	// The agent fills its own quota.
	if st, code := start("ws1-own-2", good); st != http.StatusCreated {
		t.Fatalf("the ws1 runtime's second start: %d %s", st, code)
	}
	if st, code := start("ws1-own-3", good); st != http.StatusTooManyRequests {
		t.Fatalf("control: a valid start past the quota: %d %s, want 429", st, code)
	}

	ts, tc = start(secret, bad)
	fs, fc = start("no-such-turn-43", bad)
	if st, _ := as(agent, "GET", "/v1/turns/no-such-turn-43", nil); st != http.StatusNotFound {
		t.Fatalf("a probe appended a turn: GET answers %d", st)
	}
	if ts != fs || tc != fc {
		t.Errorf("at its open-turns quota, a credential limited to ws1 tells another workspace's turn id from a free one, appending nothing: "+
			"an invalid start of ws2's id answers %d %s, of a free id %d %s (README: a start that cannot succeed is the same answer for a taken id and a free one)",
			ts, tc, fs, fc)
	}
}

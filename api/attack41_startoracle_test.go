package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestAttack41TurnStartConfirmsOtherWorkspaceTurnID (forty-first review,
// low): the README promises a credential limited to some workspaces that a
// turn of another workspace it names by id is answered "a 404, as for a
// missing one ... so that the id is not confirmed" (the twenty-fifth
// review's fix, TestAttack25OtherWorkspaceIdsConfirmedAndNamed, on the
// read, answer and event endpoints). POST /v1/turns still tells them
// apart, and without appending anything: the ws1 runtime starts a turn in
// its own workspace with the guessed id and a profile that does not exist.
// An id taken by a turn of ws2 answers 409 turn_exists (existence is
// checked before the profile); a free id answers 400 invalid_field. The
// agent holding the ws1 runtime's credential so enumerates the turn ids
// (client-chosen: ticket numbers, branch names, "acme-merger-2027") of
// every other tenant, one request each, leaving no turn behind.
//
// Control: the same credential's reads of that turn answer 404, as for a
// missing one, and a start with a valid body of a free id succeeds.
func TestAttack41TurnStartConfirmsOtherWorkspaceTurnID(t *testing.T) {
	s := startInProcess(t)
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

	// Control: the documented property holds for reads, and a legitimate
	// start works.
	if st, code := as(agent, "GET", "/v1/turns/"+secret, nil); st != http.StatusNotFound {
		t.Fatalf("control: the ws1 runtime reading the ws2 turn: %d %s, want 404 as for a missing one", st, code)
	}
	if st, code := as(agent, "GET", "/v1/turns/no-such-turn-41", nil); st != http.StatusNotFound {
		t.Fatalf("control: the ws1 runtime reading a missing turn: %d %s, want 404", st, code)
	}
	if st, code := as(agent, "POST", "/v1/turns", map[string]any{"turn_id": "ws1-own-41", "workspace_id": "ws1", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
		t.Fatalf("control: the ws1 runtime starting a turn of its own: %d %s", st, code)
	}

	// The probe: a start in ws1 that can never succeed (no such profile).
	probe := func(id string) (int, string) {
		return as(agent, "POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws1", "thread_id": "th",
			"permission_profile": map[string]string{"profile": "no-such-profile"}, "workspace_root": root})
	}
	takenSt, takenCode := probe(secret)
	freeSt, freeCode := probe("no-such-turn-41")
	if freeSt == http.StatusCreated || takenSt == http.StatusCreated {
		t.Fatalf("a probe started a turn: taken %d, free %d", takenSt, freeSt)
	}
	if st, _ := as(agent, "GET", "/v1/turns/no-such-turn-41", nil); st != http.StatusNotFound {
		t.Fatalf("the probe of a free id appended a turn: GET answers %d", st)
	}
	if takenSt != freeSt || takenCode != freeCode {
		t.Errorf("POST /v1/turns confirms another workspace's turn id to a credential limited to ws1, appending nothing: "+
			"the id of ws2's turn answers %d %s, a free id %d %s (README: a turn of another workspace named by id is answered as a missing one, \"so that the id is not confirmed\")",
			takenSt, takenCode, freeSt, freeCode)
	}
}

package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"turnstile/domain/turn"
)

// TestAttack45ChildCapConfirmsOtherWorkspaceTurnID (forty-fifth review,
// low): decideStart tells whether the id is taken last, after the whole
// request was found good (the forty-first review). But a child start is
// first registered on its parent (engine load: RegisterChild, run only
// when the child's own stream is empty, s.Status == StatusNone), and the
// parent refuses a child past turn.MaxChildren with a 400 invalid_field.
// A ws1 runtime whose own turn holds MaxChildren children (it starts and
// completes them itself; completed children leave the open-turn quota)
// starts one more child under it with a guessed id: a free id answers 400
// invalid_field (parent_turn_id: too many children), an id ws2's turn
// holds answers 409 turn_exists — appending nothing either way, one
// request per guess, for any number of guesses.
//
// Fixed would look like: load skips RegisterChild only for an id the
// caller may see; an id of another workspace goes to RegisterChild (and
// its refusal) like a free one, or the parent's child cap is checked in
// decideStart before the conflict.
//
// Control: the ws1 runtime reading the ws2 turn is answered 404, as a
// missing one; below the cap, a child with a free id starts.
func TestAttack45ChildCapConfirmsOtherWorkspaceTurnID(t *testing.T) {
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
	if st, code := as(agent, "POST", "/v1/turns", map[string]any{"turn_id": "ws1-parent", "workspace_id": "ws1", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
		t.Fatalf("the ws1 runtime starting its turn: %d %s", st, code)
	}
	child := func(id string) (int, string) {
		return as(agent, "POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws1", "thread_id": "th",
			"parent_turn_id": "ws1-parent", "permission_profile": map[string]string{"mode": "supervised"}})
	}
	if st, code := as(agent, "GET", "/v1/turns/"+secret, nil); st != http.StatusNotFound {
		t.Fatalf("control: the ws1 runtime reading the ws2 turn: %d %s, want 404", st, code)
	}
	// The agent fills its turn's child cap, completing each child.
	for i := 0; i < turn.MaxChildren; i++ {
		id := fmt.Sprintf("ws1-child-%d", i)
		if st, code := child(id); st != http.StatusCreated {
			t.Fatalf("control: child %d below the cap: %d %s", i, st, code)
		}
		if st, code := as(agent, "POST", "/v1/turns/"+id+"/complete", map[string]any{}); st != http.StatusOK {
			t.Fatalf("complete child %d: %d %s", i, st, code)
		}
	}

	takenSt, takenCode := child(secret)
	freeSt, freeCode := child("no-such-turn-45")
	if takenSt == http.StatusCreated || freeSt == http.StatusCreated {
		t.Fatalf("a probe started a turn past the cap: taken %d, free %d", takenSt, freeSt)
	}
	if st, _ := as(agent, "GET", "/v1/turns/no-such-turn-45", nil); st != http.StatusNotFound {
		t.Fatalf("the probe of a free id appended a turn: GET answers %d", st)
	}
	if takenSt != freeSt || takenCode != freeCode {
		t.Errorf("a child start under a parent at its child cap confirms another workspace's turn id to a credential limited to ws1, appending nothing: "+
			"the id of ws2's turn answers %d %s, a free id %d %s", takenSt, takenCode, freeSt, freeCode)
	}
}

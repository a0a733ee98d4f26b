package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestAttack22RuntimeNarrowingNeverAllowsAChildsRequest (holds): a change of
// a turn's permissions resolves, in the same append and as whoever made it,
// the open requests the new snapshot allows (allow_once, permissions_changed),
// and a change of a parent is carried to its children (FromParent, bounded
// again by the parent, also on a replay of the same change) as the same
// principal. The runtime may narrow: were any of those bounded-again
// snapshots looser than the child's in one dimension while narrower in
// another, the runtime's narrowing would answer its own pending requests in
// the child allow. The agent narrows the parent several ways (a mode, the
// same mode again, a denied tool list, back through the child's own
// narrowing) while the child's command and its grandchild's wait: each
// stays pending, none is resolved by the runtime. Control: the approver
// answers them.
func TestAttack22RuntimeNarrowingNeverAllowsAChildsRequest(t *testing.T) {
	s := startInProcess(t)
	root := t.TempDir()
	rt := s.credential("agent", "runtime", "ws")
	ap := s.credential("alice", "approver", "ws")
	as := func(token, method, path string, body any) (int, []byte) {
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
		return resp.StatusCode, out
	}
	must := func(want int, token, method, path string, body any) []byte {
		t.Helper()
		st, b := as(token, method, path, body)
		if st != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, st, b, want)
		}
		return b
	}
	must(http.StatusCreated, rt, "POST", "/v1/turns", map[string]any{"turn_id": "cn-p", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root})
	must(http.StatusCreated, rt, "POST", "/v1/turns", map[string]any{"turn_id": "cn-c", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "cn-p", "permission_profile": map[string]any{"mode": "auto_accept_edits"},
		"task_cap": map[string]any{"mode": "auto_accept_edits"}})
	must(http.StatusCreated, rt, "POST", "/v1/turns", map[string]any{"turn_id": "cn-g", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "cn-c"})
	ask := func(turnID, call, cmd string) string {
		t.Helper()
		b := must(http.StatusOK, rt, "POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": cmd}})
		var d struct {
			Decision string `json:"decision"`
			Request  struct {
				RequestID string `json:"request_id"`
			} `json:"request"`
		}
		if json.Unmarshal(b, &d) != nil || d.Decision != "ask" || d.Request.RequestID == "" {
			t.Fatalf("decide %s in %s: %s, want ask", cmd, turnID, b)
		}
		return d.Request.RequestID
	}
	reqs := map[string]string{"cn-c": ask("cn-c", "c1", "make deploy"), "cn-g": ask("cn-g", "g1", "make deploy")}
	pending := func(when string) {
		t.Helper()
		for turnID, id := range reqs {
			var a struct {
				Status     string `json:"status"`
				Resolution string `json:"resolution"`
				ResolvedBy struct {
					Name string `json:"name"`
				} `json:"resolved_by"`
			}
			if err := json.Unmarshal(must(http.StatusOK, ap, "GET", "/v1/approvals/"+id, nil), &a); err != nil {
				t.Fatal(err)
			}
			if a.Status != "pending" {
				t.Fatalf("%s: %s's request is %s (%s by %s), want pending: the runtime's narrowing answered it", when, turnID, a.Status, a.Resolution, a.ResolvedBy.Name)
			}
		}
	}
	for _, step := range []struct {
		turn string
		body map[string]any
	}{
		{"cn-p", map[string]any{"mode": "supervised"}},
		{"cn-p", map[string]any{"mode": "supervised"}}, // a replay: the propagation again
		{"cn-c", map[string]any{"mode": "supervised"}},
		{"cn-p", map[string]any{"mode": "supervised", "denied_tools": []string{"web_fetch"}}},
		{"cn-p", map[string]any{"mode": "supervised", "denied_tools": []string{"web_fetch"}, "allowed_paths": []string{root}}},
	} {
		st, b := as(rt, "POST", "/v1/turns/"+step.turn+"/permissions", map[string]any{"permission_profile": step.body})
		if st != http.StatusOK && st != http.StatusForbidden && st != http.StatusConflict && st != http.StatusBadRequest {
			t.Fatalf("narrow %s to %v: %d %s", step.turn, step.body, st, b)
		}
		pending("after the runtime changed " + step.turn)
	}
	// Control: the approver answers both.
	for _, id := range reqs {
		must(http.StatusOK, ap, "POST", "/v1/approvals/"+id+"/respond", map[string]string{"resolution": "allow_once"})
	}
	// An admin's narrowing of the child takes effect although the parent
	// was narrowed below the child's task cap (it was refused
	// cap_exceeds_parent; TestChildChangedAfterItsParentNarrowedBelowItsCap).
	if st, b := s.do("POST", "/v1/turns/cn-c/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised", "denied_tools": []string{"exec_command"}}}); st != http.StatusOK {
		t.Fatalf("an admin's narrowing of the child: %d %s", st, b)
	}
}

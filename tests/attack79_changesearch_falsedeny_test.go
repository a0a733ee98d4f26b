package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack79ChangeCancelsSearchKeptToAllowList: the seventy-ninth review,
// a false deny of the same gap. A search kept to a listed domain
// (allowed_domains ["pypi.org"]) is allowed outright under an allow-list of
// pypi.org whose table never asks (TestWebSearchUnderAllowList). The same
// search, asked before a change to that profile, is cancelled by the change
// (permissions_changed): Judged() has no Domains, and DomainsInside(nil)
// under an allow-list is false. The honest runtime's pending search is
// refused by a change that allows it.
//
// Severity: low (false deny; the runtime can search again).
//
// Fixed would look like: the record keeps the domains and Judged() rebuilds
// them (the same fix as above), so the change allows the search once.
//
// Control: a new search of pypi.org after the change is allowed.
func TestAttack79ChangeCancelsSearchKeptToAllowList(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.pypionly]
extends = ":workspace"
[permissions.pypionly.network]
enabled = true
[permissions.pypionly.network.domains]
"pypi.org" = "allow"
[permissions.pypionly.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "cl", "workspace_id": "ws", "thread_id": "th-cl",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
	pypi := map[string]any{"query": "requests", "allowed_domains": []string{"pypi.org"}}
	if d := runtime.decide("cl", "s1", "web_search", pypi); d.Decision != "ask" || d.Request == nil {
		t.Fatalf("precondition: web_search under auto_accept_edits asks: %+v", d)
	}
	if st, b := s.Request("POST", "/v1/turns/cl/permissions", map[string]any{"permission_profile": map[string]any{"profile": "pypionly"}}); st != http.StatusOK {
		t.Fatalf("change to pypionly: %d %s", st, b)
	}
	if d := runtime.decide("cl", "s2", "web_search", pypi); d.Decision != "allow" {
		t.Fatalf("control: a new search kept to pypi.org after the change: %+v, want allow", d)
	}
	if d := runtime.decide("cl", "s1", "web_search", pypi); d.Decision != "allow" {
		t.Errorf("the search kept to pypi.org, asked before a change to a pypi.org allow-list that never asks, is refused after it: %s (%s; request %s %s)",
			d.Decision, d.Refusal, d.RequestStatus, d.Resolution)
	}
}

package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack79ChangeApprovesSearchOfDeniedDomain: the seventy-ninth review,
// against the seventy-fourth's web-search fix. A WebSearch/web_search
// restricted by allowed_domains to a host the profile denies by name is
// refused host_not_allowed when the policy allows it without asking
// (asIsRefusal with NetworkPolicy.DomainsInside). A search the agent asked
// for BEFORE a change to such a profile is not: a profile change judges the
// open request on ActionRecord.Judged(), which keeps no Domains (the record
// does not keep them), and DomainsInside(nil) is true on a network that is
// on with a deny-list only ("*" = "allow", "evil.example" = "deny"). So the change itself resolves the pending
// search of evil.example allow_once, reason permissions_changed, with no
// person, and turn/permission/request/resolved tells the runtime so: the
// admin's change approves in the record, and to a runtime that acts on the
// notification, the very search its deny rule forbids. (A runtime that asks
// again is refused: the retry of an allowedBefore call is judged with the
// fresh classification, which has the domains.)
//
// Severity: low (a recorded allow_once and a resolved notification for a
// call the new profile refuses; the retry is refused; same class as
// TestAttack74NarrowingLeavesExecPatchRequestOpen).
//
// Fixed would look like: the record keeps the search's domains (a scope
// entry, as url_origin and argv are kept) and Judged() rebuilds
// Action.Domains from it, so judgeOpen's asIsRefusal refuses the change's
// allow and the request is cancelled; or an open URL-less network request
// is never allowed by a change (left for a person, or cancelled).
//
// Controls: a new search of evil.example after the change is refused
// host_not_allowed, and a new search of github.com is allowed.
func TestAttack79ChangeApprovesSearchOfDeniedDomain(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.openweb]
extends = ":workspace"
[permissions.openweb.network]
enabled = true
[permissions.openweb.network.domains]
"*" = "allow"
"evil.example" = "deny"
[permissions.openweb.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "cs", "workspace_id": "ws", "thread_id": "th-cs",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
	evil := map[string]any{"query": "what the agent read", "allowed_domains": []string{"evil.example"}}
	first := runtime.decide("cs", "s1", "web_search", evil)
	if first.Decision != "ask" || first.Request == nil {
		t.Fatalf("precondition: web_search under auto_accept_edits asks: %+v", first)
	}
	st, b := s.Request("POST", "/v1/turns/cs/permissions", map[string]any{"permission_profile": map[string]any{"profile": "openweb"}})
	var changed struct {
		Position string `json:"position"`
	}
	if st != http.StatusOK || json.Unmarshal([]byte(b), &changed) != nil || changed.Position == "" {
		t.Fatalf("change to openweb: %d %s", st, b)
	}
	if d := runtime.decide("cs", "s2", "web_search", evil); d.Decision != "deny" || d.Refusal != "host_not_allowed" {
		t.Fatalf("control: a new search of the denied domain after the change: %+v, want deny host_not_allowed", d)
	}
	if d := runtime.decide("cs", "s3", "web_search", map[string]any{"query": "go", "allowed_domains": []string{"github.com"}}); d.Decision != "allow" {
		t.Fatalf("control: a new search of an undenied domain after the change: %+v, want allow", d)
	}
	var got approvalView
	s.JSON("GET", "/v1/approvals/"+first.Request.RequestID+"?after="+changed.Position, nil, http.StatusOK, &got)
	if got.Status == "resolved" && got.Resolution == "allow_once" {
		t.Errorf("the change to a profile that denies evil.example resolved the pending search of evil.example %s (permissions_changed), with no person", got.Resolution)
	}
	d := runtime.decide("cs", "s1", "web_search", evil)
	if d.Decision == "allow" {
		t.Errorf("the search of the denied domain asked before the change is allowed after it: %+v", d)
	}
}

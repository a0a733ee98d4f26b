package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack79SearchOfDeniedHostIsApprovable: the seventy-ninth review,
// against the seventy-fourth's web-search fix. Under a profile with a
// network allow-list (pypi.org) and a deny rule (evil.example) whose
// approval table asks for network calls (the default), a web_fetch of the
// denied host is refused host_denied and one of an unlisted host
// host_not_allowed, before anyone is asked: no person's click lets a fetch
// past the host rules. A web_search restricted by allowed_domains to the
// same denied host (or to an unlisted one) is not refused: the fix applies
// DomainsInside only where the table allows the call outright
// (asIsRefusal), "where the policy asks, the person is asked". So the
// person is asked about a search the profile's own rules forbid by name,
// and once they allow it the retry is allowed: the agent's query goes out
// and content from evil.example comes in, with an approval the host rules
// would never give a fetch of it.
//
// Severity: low-medium (needs a person's allow; the prompt shows "Only
// from: evil.example", but the approver has no reason to know the profile
// denies it, and for a fetch they are never asked).
//
// Fixed would look like: the host rules judge a URL-less network call's
// domains as they judge a fetch's host, whatever the table: a domain a deny
// rule names (or a host below it) refused host_denied, and under an
// allow-list a listed domain outside it refused host_not_allowed, before a
// request opens (a search naming no domain under an allow-list may still
// be asked).
//
// Controls: the fetch of evil.example and of github.com are refused before
// asking; a search kept to pypi.org asks.
func TestAttack79SearchOfDeniedHostIsApprovable(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.pypiask]
extends = ":workspace"
[permissions.pypiask.network]
enabled = true
[permissions.pypiask.network.domains]
"pypi.org" = "allow"
"evil.example" = "deny"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "sa", "workspace_id": "ws", "thread_id": "th-sa",
		"permission_profile": map[string]any{"profile": "pypiask"}, "workspace_root": root}, http.StatusCreated, nil)
	if d := runtime.decide("sa", "f1", "web_fetch", map[string]any{"url": "https://evil.example/"}); d.Decision != "deny" || d.Refusal != "host_denied" {
		t.Fatalf("control: a fetch of the denied host: %+v, want deny host_denied", d)
	}
	if d := runtime.decide("sa", "f2", "web_fetch", map[string]any{"url": "https://github.com/"}); d.Decision != "deny" || d.Refusal != "host_not_allowed" {
		t.Fatalf("control: a fetch of an unlisted host: %+v, want deny host_not_allowed", d)
	}
	if d := runtime.decide("sa", "s0", "web_search", map[string]any{"query": "requests", "allowed_domains": []string{"pypi.org"}}); d.Decision != "ask" {
		t.Fatalf("control: a search kept to the listed host asks: %+v", d)
	}
	if d := runtime.decide("sa", "s2", "web_search", map[string]any{"query": "x", "allowed_domains": []string{"github.com"}}); d.Decision != "deny" {
		t.Errorf("a search kept to an unlisted host, whose fetch is refused before asking: %s (%s), want deny host_not_allowed", d.Decision, d.Reason)
	}
	evil := map[string]any{"query": "what the agent read", "allowed_domains": []string{"evil.example"}}
	d := runtime.decide("sa", "s1", "web_search", evil)
	if d.Decision == "ask" && d.Request != nil {
		t.Errorf("a search kept to the host the profile denies by name is put to a person (a fetch of it is refused before asking)")
		if st, b := s.Request("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"}); st != http.StatusOK {
			t.Fatalf("respond: %d %s", st, b)
		}
		d = runtime.decide("sa", "s1", "web_search", evil)
	}
	if d.Decision == "allow" {
		t.Errorf("the search kept to evil.example, denied by the profile, is allowed: %s (%s by %s)", d.Decision, d.Reason, d.DecidedBy)
	}
}

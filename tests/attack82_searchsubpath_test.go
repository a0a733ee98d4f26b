package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack82SearchKeptToSubpathRefused (eighty-second review, false
// deny, low): a web search's allowed_domains may name a subpath (Anthropic's
// web search tool, which Claude Code's WebSearch calls: "Subpaths are
// supported (example.com/blog)"); such a search is narrower than one kept
// to the whole host, and narrower still than one naming no domain.
// Since the seventy-ninth review's fix a search that names its domains is
// held to the host rules whatever the table says (urlLessRefusal), and
// NetworkPolicy.DomainsInside reads each entry with ParseHost, which
// refuses a '/': the search is refused host_not_allowed before anyone is
// asked, in every mode, a plain supervised turn with no host rule at all
// included, while the same search kept to docs.python.org, or naming no
// domain, is put to the person. README ("unless each is allowed as a fetch
// of it would be") promises the subpath's host is judged: a fetch of
// https://docs.python.org/3/ is asked.
//
// Fix: judge an entry's host (what precedes its first '/'), as the search
// service keeps the results to that host and below it; refuse only what
// has no readable host.
func TestAttack82SearchKeptToSubpathRefused(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.pyask]
extends = ":workspace"
[permissions.pyask.network]
enabled = true
[permissions.pyask.network.domains]
"docs.python.org" = "allow"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "sv", "workspace_id": "ws", "thread_id": "th-sv",
		"permission_profile": map[string]any{"mode": "supervised"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "pl", "workspace_id": "ws", "thread_id": "th-pl",
		"permission_profile": map[string]any{"profile": "pyask"}, "workspace_root": root}, http.StatusCreated, nil)
	for _, turnID := range []string{"sv", "pl"} {
		// Controls: the fetch of the page, the search kept to the host and
		// the search naming none are each put to a person.
		if d := runtime.decide(turnID, "f", "web_fetch", map[string]any{"url": "https://docs.python.org/3/"}); d.Decision != "ask" {
			t.Fatalf("%s: control: the fetch of https://docs.python.org/3/: %s (%s %s), want ask", turnID, d.Decision, d.Reason, d.Refusal)
		}
		if d := runtime.decide(turnID, "h", "web_search", map[string]any{"query": "asyncio", "allowed_domains": []string{"docs.python.org"}}); d.Decision != "ask" {
			t.Fatalf("%s: control: a search kept to docs.python.org: %s (%s %s), want ask", turnID, d.Decision, d.Reason, d.Refusal)
		}
		if turnID == "sv" {
			if d := runtime.decide(turnID, "n", "web_search", map[string]any{"query": "asyncio"}); d.Decision != "ask" {
				t.Fatalf("%s: control: a search naming no domain: %s (%s %s), want ask", turnID, d.Decision, d.Reason, d.Refusal)
			}
		}
		d := runtime.decide(turnID, "p", "web_search", map[string]any{"query": "asyncio", "allowed_domains": []string{"docs.python.org/3"}})
		if d.Decision != "ask" {
			t.Errorf("%s: a search kept to docs.python.org/3 (narrower than the host's, which asks) is %s (%s, %s), not put to the person", turnID, d.Decision, d.Reason, d.Refusal)
		}
	}
}

package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack74WebSearchPastAllowList: the seventy-fourth review. A profile
// that turns the network on with a domain allow-list ("pypi.org" only: an
// allow-list blocks every other host, README "Permission profiles") and an
// approval table that does not ask for network calls (an unattended "fetch
// from pypi only" profile) has every web_fetch outside the list refused
// host_not_allowed. Claude Code's WebSearch, though, is a network call with
// no URL: only a disabled network refuses it (asIsRefusal, urlLessRefusal),
// so under the allow-list it is allowed outright. The agent chooses its
// query (anything it read goes to the search service, a host no rule names)
// and its allowed_domains (results, page content included, from any host,
// among them hosts the profile denies by name). The twenty-ninth review
// fixed the disabled network and named this case ("refused or asked under a
// restricted allow-list") without a test; it is still open.
//
// Severity: low-medium (a channel out and in past the profile's host rules;
// the search service, not the machine, opens the connections).
//
// Fixed would look like: under a restricted network (an allow-list), a
// network action without a URL is refused (or asked) unless its own domain
// restriction lies inside the allow-list (WebSearch's allowed_domains given,
// not empty, each matched by an allow rule and by no deny rule).
//
// Controls: in the same session a WebFetch of the listed host is allowed and
// one of an unlisted host is denied.
func TestAttack74WebSearchPastAllowList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.pypionly]
extends = ":workspace"
[permissions.pypionly.network]
enabled = true
[permissions.pypionly.network.domains]
"pypi.org" = "allow"
"evil.example" = "deny"
[permissions.pypionly.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	ccProject(t, ws)
	cc := filepath.Join(dir, "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "profile": "pypionly"}}})
	if err := os.WriteFile(cc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--claude-code-config", cc)
	const sess = "sess-74-search"
	fetch := func(id, url string) string {
		return s.hookHTTP(ccEdit(t, ccPayload(t, "pre_webfetch", sess, ws), map[string]any{
			"tool_use_id": id, "tool_input": map[string]any{"url": url, "prompt": "read it"}}))
	}
	if out := fetch("toolu_74a", "https://pypi.org/simple/"); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("control: WebFetch of the listed host: %s", strings.TrimSpace(out))
	}
	if out := fetch("toolu_74b", "https://evil.example/"); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("control: WebFetch of a denied host: %s", strings.TrimSpace(out))
	}
	if out := fetch("toolu_74c", "https://github.com/"); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("control: WebFetch of an unlisted host: %s", strings.TrimSpace(out))
	}
	search := ccEdit(t, ccPayload(t, "pre_websearch", sess, ws), map[string]any{
		"tool_use_id": "toolu_74d",
		"tool_input":  map[string]any{"query": "what the agent read: AKIA…", "allowed_domains": []string{"evil.example"}},
	})
	if out := s.hookHTTP(search); strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("WebSearch restricted to a host the profile denies, under an allow-list of pypi.org only: %s", strings.TrimSpace(out))
	}
}

package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebSearchUnderAllowList: under a network allow-list whose table does
// not ask, a WebSearch kept to listed domains is allowed, and one that names
// none, or an unlisted one, is refused host_not_allowed (the seventy-fourth
// review's fix; TestAttack74WebSearchPastAllowList is the denied domain).
func TestWebSearchUnderAllowList(t *testing.T) {
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
	search := func(id string, input map[string]any) string {
		return strings.TrimSpace(s.hookHTTP(ccEdit(t, ccPayload(t, "pre_websearch", "sess-search-list", ws), map[string]any{
			"tool_use_id": id, "tool_input": input})))
	}
	if out := search("toolu_s1", map[string]any{"query": "requests", "allowed_domains": []string{"pypi.org"}}); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("a search kept to the listed domain: %s", out)
	}
	for id, input := range map[string]map[string]any{
		"toolu_s2": {"query": "requests"},
		"toolu_s3": {"query": "requests", "allowed_domains": []string{}},
		"toolu_s4": {"query": "requests", "allowed_domains": []string{"pypi.org", "github.com"}},
	} {
		if out := search(id, input); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "host_not_allowed") {
			t.Errorf("a search %v under the allow-list: %s", input, out)
		}
	}
}

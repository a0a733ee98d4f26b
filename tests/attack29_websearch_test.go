package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack29WebSearchIgnoresDisabledNetwork: web_search (Claude Code's
// WebSearch through the hook) is a network action (the permissions prompt:
// "network access (web search, fetch, download)"), but its classification
// has no URL, so the decision-time network check never runs for it: only the
// policy table's network behaviour decides. A child turn whose task cap
// disables the network (locked: "no approval can enable" it, README) under a
// full_access parent has its web_fetch refused network_disabled, yet its
// web_search, whose query the agent writes (anything it read, sent to a
// search service), is allowed. Likewise a Claude Code project whose profile
// turns the network off with an approval table that does not ask has its
// WebSearch allowed. (This is not the Approvable relaxation of
// TestAttack29DisabledNetworkAllowedByTable: the capped child's network is
// locked, and web_search reaches no resource check at all.)
//
// Fixed would look like: a network action without a URL (web_search) is
// refused network_disabled when the snapshot's network is disabled (and,
// as its fetches go to hosts no rule names, refused or asked under a
// restricted allow-list), as a web_fetch is.
//
// Severity: medium (a channel out of a turn whose network is off: the
// query carries what the agent chooses to a third party, and the results
// bring in content from any domain).
//
// Controls: the capped child's web_fetch is network_disabled; the full_access
// parent's web_search is allowed.
func TestAttack29WebSearchIgnoresDisabledNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.offline]
extends = ":workspace"
[permissions.offline.network]
enabled = false
[permissions.offline.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	ccProject(t, ws)
	cc := filepath.Join(dir, "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "profile": "offline"}}})
	if err := os.WriteFile(cc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--claude-code-config", cc)
	root := workspace(t)
	s.startTurn("parent", "ws", "full_access", root)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "child", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "parent",
		"task_cap": map[string]any{"network": map[string]any{"mode": "disabled"}}}, http.StatusCreated, nil)
	if d := s.decide("child", "fetch", "web_fetch", map[string]any{"url": "https://example.com/"}); d.Decision != "deny" || d.Refusal != "network_disabled" {
		t.Fatalf("control: the capped child's web_fetch: %+v, want deny network_disabled", d)
	}
	if d := s.decide("parent", "search", "web_search", map[string]any{"query": "x"}); d.Decision != "allow" {
		t.Fatalf("control: the full_access parent's web_search: %+v, want allow", d)
	}
	if d := s.decide("child", "search", "web_search", map[string]any{"query": "ssh-ed25519 AAAA… (what the agent read)"}); d.Decision == "allow" {
		t.Errorf("web_search in a child whose cap disables (locks) the network: allow %s; want deny network_disabled, as its web_fetch", d.Reason)
	}
	out := s.hookHTTP(ccPayload(t, "pre_websearch", "sess-29-search", ws))
	if strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("Claude Code WebSearch in a project whose profile disables the network: %s", strings.TrimSpace(out))
	}
}

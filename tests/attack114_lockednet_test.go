package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// attack114LockedProfiles: "open" (the whole filesystem, the network on)
// and "lim", the same with the network held to one domain and to GET,
// HEAD and OPTIONS ("limited"; with a root server's egress proxy the
// kernel holds it, so it degrades nothing).
func attack114LockedProfiles(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(f, []byte(`
[permissions.open]
extends = ":danger-full-access"

[permissions.lim]
extends = "open"
[permissions.lim.network]
mode = "limited"
[permissions.lim.network.domains]
"example.com" = "allow"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAttack114_GrandchildKeepsApprovableNetwork: Widens does not compare
// NetworkPolicy.Locked, the flag that makes a disabled network one no
// approval can enable (a task cap's, or methods that share nothing). A
// grandchild "c" (supervised: network off, but approvable) runs under a
// child "p" whose cap held its network to POST. The admin narrows the root
// from "open" to "lim" (GET, HEAD, OPTIONS): p's methods then share
// nothing with its parent's, so p's network is disabled and locked. c
// bounded again by p is locked too, but Widens(bounded, c) compares only
// the mode and unix sockets of two disabled networks, so the change from
// the parent is skipped ("nothing narrower") and c keeps an unlocked
// network: its web_search is put to a person (ask) where its parent's
// bound refuses it outright (network_disabled).
//
// Control: a grandchild started under p after the narrowing, in the same
// mode, is refused (deny network_disabled); before the narrowing c's
// web_search asks (so the ask after is the kept snapshot).
func TestAttack114_GrandchildKeepsApprovableNetwork(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the egress proxy (which holds a limited network without a degradation) needs a root server")
	}
	root := workspace(t)
	s := StartServer(t, "", "--profiles", attack114LockedProfiles(t))
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "r114", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "open"}, "workspace_root": root}, http.StatusCreated, nil)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p114", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "r114",
		"task_cap": map[string]any{"network": map[string]any{"mode": "enabled", "allow_localhost": true, "allow_unix_sockets": true,
			"allow_private_networks": true, "allowed_methods": []string{"POST"}}}}, http.StatusCreated, nil)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "c114", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "p114",
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	network := func(id string) string {
		var raw json.RawMessage
		s.JSON("GET", "/v1/turns/"+id, nil, http.StatusOK, &raw)
		var tu struct {
			Snapshot struct {
				Network json.RawMessage `json:"network"`
			} `json:"security_snapshot"`
		}
		json.Unmarshal(raw, &tu)
		return string(tu.Snapshot.Network)
	}
	if d := s.decide("c114", "s1", "web_search", map[string]any{"query": "x"}); d.Decision != "ask" {
		t.Fatalf("setup: the grandchild's web_search before the narrowing: %+v, want ask", d)
	}
	// The admin narrows the root.
	if st, raw := s.Request("POST", "/v1/turns/r114/permissions", map[string]any{"permission_profile": map[string]any{"profile": "lim"}}); st != http.StatusOK {
		t.Fatalf("setup: the admin's narrowing to lim: %d %.300s", st, raw)
	}
	t.Logf("p114 network: %s", network("p114"))
	t.Logf("c114 network: %s", network("c114"))
	// Control: a grandchild started now, in the same mode, is refused.
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "c114-late", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "p114",
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	t.Logf("c114-late network: %s", network("c114-late"))
	if d := s.decide("c114-late", "s2", "web_search", map[string]any{"query": "x"}); d.Decision != "deny" || d.Refusal != "network_disabled" {
		t.Fatalf("control: a grandchild started after the narrowing: %+v, want deny network_disabled", d)
	}
	// The attack: the grandchild started before.
	if d := s.decide("c114", "s3", "web_search", map[string]any{"query": "x"}); d.Decision != "deny" {
		t.Errorf("a grandchild started before its parent's network was locked (methods sharing nothing with the narrowed root's) keeps an approvable network: web_search %s (%s) where its parent's bound refuses it (network_disabled)", d.Decision, d.Reason)
	}
}

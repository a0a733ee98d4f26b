package tests

import (
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack30HostHeaderPairs: the twenty-ninth review's Host header check
// (domain.HostMismatch) reads a web_fetch's headers argument through
// domain.ArgumentHeaders, which understands an object of names and a list
// of "Name: value" lines and nothing else: headers given as a list of
// [name, value] pairs (the Fetch standard's HeadersInit sequence form,
// which Node's fetch/undici, httpx and aiohttp take as they are) or as one
// string of header lines yield no header at all, so a web_fetch of the one
// allowed host https://api.example.com/… with [["Host","evil.example"]]
// is allowed, and a runtime honouring its tool's headers asks the allowed
// address for the virtual host evil.example, which the allow-list never
// named: the fix of the last hour is bypassed by spelling the same header
// another standard way. Fixed would be every shape the argument can take
// read (pairs, a string of lines), or an argument of a shape not
// understood refused when the call has a URL. Severity: medium (as the
// twenty-ninth review's finding it reopens). Controls: the object and line
// forms naming evil.example are refused; a pair naming the URL's own host
// is allowed.
func TestAttack30HostHeaderPairs(t *testing.T) {
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
	if status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "hp", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "oneapi"}}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	url := "https://api.example.com/v1/upload"
	if d := s.decide("hp", "same", "web_fetch", map[string]any{"url": url, "headers": []any{[]any{"Host", "api.example.com"}}}); d.Decision != "allow" {
		t.Fatalf("control: a pair naming the URL's own host: %+v, want allow", d)
	}
	for i, h := range []any{map[string]any{"Host": "evil.example"}, []any{"Host: evil.example"}} {
		if d := s.decide("hp", "ctl"+string(rune('a'+i)), "web_fetch", map[string]any{"url": url, "headers": h}); d.Decision == "allow" {
			t.Fatalf("control: headers %v: %+v, want refused", h, d)
		}
	}
	for i, h := range []any{
		[]any{[]any{"Host", "evil.example"}},
		[]any{[]any{"content-type", "application/json"}, []any{"host", "evil.example:443"}},
		"Host: evil.example",
	} {
		d := s.decide("hp", "pair"+string(rune('a'+i)), "web_fetch", map[string]any{"url": url, "method": "POST", "headers": h})
		if d.Decision == "allow" {
			t.Errorf("web_fetch of %s with headers %v (a request to the virtual host evil.example): allow %s; want it refused as the object form is", url, h, d.Reason)
		}
	}
}

package tests

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// attack56LoopbackProfiles: "lit" names the loopback address 127.0.0.1 in
// its allow-list; "both" names it and "localhost".
const attack56LoopbackProfiles = `
[permissions.lit]
extends = ":workspace"
[permissions.lit.network]
enabled = true
[permissions.lit.network.domains]
"127.0.0.1" = "allow"
[permissions.lit.approvals]
policy = "full_access"

[permissions.both]
extends = ":workspace"
[permissions.both.network]
enabled = true
[permissions.both.network.domains]
"127.0.0.1" = "allow"
"localhost" = "allow"
[permissions.both.approvals]
policy = "full_access"
`

// TestAttack56NamedLoopbackLiteralRefused (fifty-sixth review, low, a
// false deny): REFERENCE §10 says loopback, private, link-local, CGNAT and
// metadata addresses "are refused unless an allow-list names that IP
// literal or localhost", and the README's profile example says the same
// ("loopback, private and metadata addresses only when named"). A profile
// that names the IP literal 127.0.0.1 is refused it all the same:
// profileNetworkPolicy sets AllowLocalhost only for an allow-list entry
// "localhost" (domain/profile_snapshot.go), and CheckURL / CheckAddr
// refuse a loopback address whenever AllowLocalhost is off, before any
// allow rule is read (sandbox/network.go checkTarget, netrules.go
// CheckAddr) — while an exact rule naming a private or metadata literal
// does open it (matchExact). The profile's own decision (turnstile
// profiles --url, CompiledNetwork.DecideURL) answers allowed; the proxy
// and web_fetch's decision answer localhost_not_allowed.
//
// Control: with "localhost" named too, a GET of http://127.0.0.1:port/
// through the turn's proxy is answered. Attack: naming 127.0.0.1 alone
// must be enough.
func TestAttack56NamedLoopbackLiteralRefused(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: the egress proxy needs a root server")
		}
		t.Skip("the egress proxy needs a root server")
	}
	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(attack56LoopbackProfiles), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", file, "--egress-listen", "127.0.0.1:0")
	root := workspace(t)
	origin := egressOrigin(t, "loopback-origin")
	get := func(turnID string) (int, string, string) {
		if st, body := startProfileTurn(s, turnID, root, map[string]any{"profile": turnID}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", turnID, st, body)
		}
		var eg struct {
			ProxyURL string `json:"proxy_url"`
		}
		s.JSON("GET", "/v1/turns/"+turnID+"/egress", nil, http.StatusOK, &eg)
		pu, err := url.Parse(eg.ProxyURL)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 20 * time.Second}
		resp, err := c.Get("http://" + origin + "/")
		if err != nil {
			t.Fatalf("%s: GET through the proxy: %v", turnID, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("X-Turnstile-Refusal"), string(b)
	}
	if code, why, body := get("both"); code != http.StatusOK || body != "loopback-origin" {
		t.Fatalf("control: 127.0.0.1 and localhost named: %d %s %q", code, why, body)
	}
	if code, why, body := get("lit"); code != http.StatusOK || body != "loopback-origin" {
		t.Errorf("an allow-list naming 127.0.0.1 is refused http://%s/: %d %s %q", origin, code, why, body)
	}
}

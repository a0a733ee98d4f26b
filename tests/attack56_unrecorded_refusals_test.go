package tests

import (
	"bufio"
	"encoding/base64"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// attack56LimitedProfile: a network limited to GET, HEAD and OPTIONS with
// loopback allowed (the test's upstream), decided without a question.
const attack56LimitedProfile = `
[permissions.readnet]
extends = ":workspace"
[permissions.readnet.network]
enabled = true
mode = "limited"
[permissions.readnet.network.domains]
"127.0.0.1" = "allow"
"localhost" = "allow"
[permissions.readnet.approvals]
policy = "full_access"
`

// TestAttack56ProxyRefusalsLeaveNoEvent (fifty-sixth review, low): the
// egress proxy's record says "a refused connection is its own
// decision_denied event" (turn.EgressTraffic), and EngineJudge "records
// every decision as an event on the turn". The refusals the proxy makes
// itself, before it asks the judge, are recorded nowhere: serve answers
// 403 for a CONNECT under a limited network, and for a request that names
// another method in an override header or ?_method=, straight from
// s.Network.MethodAllowed (proxy.go serve), without p.decide. Under a
// read-only ("limited") network these are exactly the attempts to send
// (a TLS tunnel, where any method could be spoken; a DELETE in disguise),
// and a person reading the turn's audit sees none of them; the same
// request made as the runtime's own web_fetch decision is a
// decision_denied event (method_not_allowed).
//
// Control: a plain GET to a host the profile does not name is refused by
// the judge and leaves a decision_denied event naming it. Attack: a
// CONNECT, and a GET with X-HTTP-Method-Override: DELETE, are refused
// (403 method_not_allowed) and must each leave a decision_denied event;
// today neither leaves any event.
func TestAttack56ProxyRefusalsLeaveNoEvent(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: the egress proxy needs a root server")
		}
		t.Skip("the egress proxy needs a root server")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(file, []byte(attack56LimitedProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	dns := dnsServer(t, map[string][]netip.Addr{"other.test": {netip.MustParseAddr("127.0.0.1")}})
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns, "--egress-listen", "127.0.0.1:0")
	root := workspace(t)
	if st, body := startProfileTurn(s, "lim", root, map[string]any{"profile": "readnet"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	origin := egressOrigin(t, "upstream")
	port := origin[strings.LastIndex(origin, ":")+1:]
	var eg struct {
		ProxyURL string `json:"proxy_url"`
	}
	s.JSON("GET", "/v1/turns/lim/egress", nil, http.StatusOK, &eg)
	pu, err := url.Parse(eg.ProxyURL)
	if err != nil || pu.User == nil {
		t.Fatalf("proxy_url %q", eg.ProxyURL)
	}
	pass, _ := pu.User.Password()
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(pu.User.Username()+":"+pass)) + "\r\n"
	send := func(raw string) (int, string) {
		c, err := net.DialTimeout("tcp", pu.Host, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		c.Write([]byte(raw))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: %v", strings.SplitN(raw, "\r\n", 2)[0], err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("X-Turnstile-Refusal")
	}
	denied := func(needle string) bool {
		evs, _ := s.events("lim")
		for _, e := range evs {
			if e.Type == "permission.decision_denied" && strings.Contains(string(e.Data), needle) {
				return true
			}
		}
		return false
	}

	// Control: the judge's refusal is recorded.
	if code, why := send("GET http://other.test:" + port + "/ HTTP/1.1\r\nHost: other.test:" + port + "\r\n" + auth + "Connection: close\r\n\r\n"); code != http.StatusForbidden {
		t.Fatalf("control: GET other.test: %d %s, want 403", code, why)
	}
	if !denied("other.test") {
		_, raw := s.events("lim")
		t.Fatalf("control: no decision_denied event for other.test in %.3000s", raw)
	}
	// And a plain GET of the allowed origin passes.
	if code, why := send("GET http://" + origin + "/ HTTP/1.1\r\nHost: " + origin + "\r\n" + auth + "Connection: close\r\n\r\n"); code != http.StatusOK {
		t.Fatalf("control: GET of the allowed origin under limited: %d %s", code, why)
	}

	// Attack: the proxy's own refusals.
	if code, why := send("CONNECT " + origin + " HTTP/1.1\r\nHost: " + origin + "\r\n" + auth + "\r\n"); code != http.StatusForbidden || why != "method_not_allowed" {
		t.Fatalf("CONNECT under limited: %d %s, want 403 method_not_allowed", code, why)
	}
	if !denied("127.0.0.1:" + port) {
		t.Errorf("a CONNECT to %s refused under the limited network left no decision_denied event", origin)
	}
	if code, why := send("GET http://localhost:" + port + "/ HTTP/1.1\r\nHost: localhost:" + port + "\r\nX-HTTP-Method-Override: DELETE\r\n" + auth + "Connection: close\r\n\r\n"); code != http.StatusForbidden || why != "method_not_allowed" {
		t.Fatalf("GET with X-HTTP-Method-Override: DELETE under limited: %d %s, want 403 method_not_allowed", code, why)
	}
	if !denied("localhost:" + port) {
		t.Errorf("a GET naming DELETE in X-HTTP-Method-Override refused under the limited network left no decision_denied event")
	}
}

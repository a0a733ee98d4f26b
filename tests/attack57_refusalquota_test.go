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

// TestAttack57ProxyRefusalsPastTheQuota (fifty-seventh review, medium):
// every connection a command opens through the egress proxy is an event on
// the turn, so EngineJudge.decide and Record first ask Admit — the byte
// quota of the credential it is charged to (api.HeldBytesQuota,
// --max-open-turn-bytes): past it a connection is refused quota_exceeded
// and nothing more is written (judge.go: "every connection a command opens
// is otherwise an event on the turn"). The fifty-sixth review's fix made
// the proxy's own refusals events too (proxy.go refused → judge.go
// EngineJudge.Refuse), but Refuse never asks Admit: it appends a
// decision_denied event (a web_fetch invocation, its arguments, a fresh
// correlation id) for every refused CONNECT under a limited network and
// every request naming a refused method override — before and past the
// quota. A command on a read-only network loops `curl -p -x $HTTP_PROXY
// https://…` (or `curl -H 'X-HTTP-Method-Override: DELETE'`) and writes
// events into the turn's log and the store without bound, past the bound
// that exists to stop exactly that, with no decision and no approval
// needed; the operator's held-bytes quota no longer bounds what one
// credential's open turns hold.
//
// Control: GETs to a host the profile does not name are judge refusals,
// recorded until the quota is reached, and then refused quota_exceeded
// with no further event. Attack: after that, refused CONNECTs must not add
// events; today each adds one.
func TestAttack57ProxyRefusalsPastTheQuota(t *testing.T) {
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
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns, "--egress-listen", "127.0.0.1:0", "--max-open-turn-bytes", "40000")
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
	count := func() int { evs, _ := s.events("lim"); return len(evs) }

	// Control: judge refusals until the quota stops them.
	get := "GET http://other.test:" + port + "/ HTTP/1.1\r\nHost: other.test:" + port + "\r\n" + auth + "Connection: close\r\n\r\n"
	over := false
	for i := 0; i < 2000 && !over; i++ {
		code, why := send(get)
		if code != http.StatusForbidden {
			t.Fatalf("control: GET other.test: %d %s, want 403", code, why)
		}
		over = why == "quota_exceeded"
	}
	if !over {
		t.Fatal("control: the held-bytes quota never refused the judge's decisions")
	}
	before := count()
	if code, why := send(get); code != http.StatusForbidden || why != "quota_exceeded" {
		t.Fatalf("control: past the quota a GET is %d %s", code, why)
	}
	if n := count(); n != before {
		t.Fatalf("control: a decision past the quota still added %d events", n-before)
	}

	// Attack: the proxy's own refusals, past the quota.
	const tries = 50
	for i := 0; i < tries; i++ {
		if code, why := send("CONNECT " + origin + " HTTP/1.1\r\nHost: " + origin + "\r\n" + auth + "\r\n"); code != http.StatusForbidden || why != "method_not_allowed" {
			t.Fatalf("CONNECT under limited: %d %s, want 403 method_not_allowed", code, why)
		}
	}
	if n := count(); n != before {
		t.Errorf("past the held-bytes quota, %d refused CONNECTs added %d events to the turn (the quota bounds the judge's decisions only)", tries, n-before)
	}
}

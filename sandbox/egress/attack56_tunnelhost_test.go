package egress

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack56PlainHTTPInTunnelFrontsAnotherHost (fifty-sixth review,
// medium): the proxy stops host fronting on both of its other paths — a
// plain request's Host header never replaces its target's host
// (TestAttack21TargetFormsThroughTheProxy), and a TLS ClientHello inside a
// CONNECT tunnel must name the CONNECT host (sni.go, the twenty-ninth
// review: "an address that serves several names (a CDN, a shared ingress)
// answers the one the handshake asks for"). But a tunnel whose first bytes
// are not TLS is "carried as before" (helloName returns ok for anything
// that does not begin with a TLS record type, proxy.go connect splices the
// rest unread): a command sends CONNECT allowed:80 (the allowed name
// passes the decision and CheckAddr) and then, in clear, `GET /
// HTTP/1.1\r\nHost: other.test`. A shared ingress at the allowed name's
// address (virtual hosts, a CDN's port 80) routes by that Host header and
// serves other.test, which the allow-list does not name: `curl -p -x
// $HTTP_PROXY --connect-to other.test:80:allowed:80 http://other.test/`.
// It is the SNI fronting the twenty-ninth review closed, spoken in clear.
// The README lists it among what is not judged ("What a tunnel carries
// that is not TLS … [is] not judged", under "The host judged is the host
// asked"), and doctor.go names Host-header fronting; but unlike the inner
// name of ECH or the Host inside TLS, this one is in clear on the proxy's
// own stream, as readable as the ClientHello it does check: the limit is a
// choice, and the heading's promise does not hold for it.
//
// Here one loopback server stands for the shared ingress: it answers
// "allowed" for Host ok.example.test and "SECRET of other.test" for Host
// other.test. The turn allows **.example.test only (and localhost, so the
// allowed name may resolve to the test's upstream). Control: the same
// tunnel with Host ok.example.test gets "allowed". Attack: Host other.test
// must not be served (the tunnel refused or closed); today the ingress
// answers it.
func TestAttack56PlainHTTPInTunnelFrontsAnotherHost(t *testing.T) {
	ingress := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			h = r.Host
		}
		switch h {
		case "ok.example.test":
			io.WriteString(w, "allowed")
		case "other.test":
			io.WriteString(w, "SECRET of other.test")
		default:
			http.Error(w, "no such vhost", http.StatusNotFound)
		}
	})}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go ingress.Serve(ln)
	t.Cleanup(func() { ingress.Close() })
	port := ln.Addr().(*net.TCPAddr).AddrPort().Port()
	target := "ok.example.test:" + strconv.Itoa(int(port))

	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("t:"+p.Credential("t"))) + "\r\n"

	// through opens a tunnel to the allowed name and sends one plain
	// request naming host in its Host header; it returns the answer's body
	// ("" when the tunnel was refused or closed).
	through := func(host string) string {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+auth+"\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			return ""
		}
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
		inner, err := http.ReadResponse(br, nil)
		if err != nil {
			return ""
		}
		b, _ := io.ReadAll(inner.Body)
		return string(b)
	}

	if got := through("ok.example.test"); got != "allowed" {
		t.Fatalf("control: a plain request in a tunnel to the allowed name got %q, want %q", got, "allowed")
	}
	if got := through("other.test"); strings.Contains(got, "SECRET") {
		t.Errorf("a plain request in a tunnel to ok.example.test with Host other.test was served by other.test (%q): the allow-list names **.example.test only", got)
	}
}

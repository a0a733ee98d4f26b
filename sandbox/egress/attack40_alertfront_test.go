package egress

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"testing"

	"turnstile/domain"
)

// TestAttack40AlertBeforeHelloFronts: the tunnel's SNI check (sni.go, the
// twenty-ninth review's fix) reads a ClientHello only when the tunnel's
// first byte is 0x16 (a handshake record); anything else is "not TLS" and
// is spliced unjudged. But a TLS server does not need the hello to be the
// first record: Go's crypto/tls (and OpenSSL, for a pre-1.3 or not yet
// negotiated version) drops a warning-level alert record received before
// the handshake and reads on. A command that writes one 7-byte warning
// alert (15 03 01 00 02 01 64: warning, no_renegotiation) into a tunnel to
// an allowed host, and then its ClientHello naming another server, is
// served as that other server: the same fronting the SNI check closes
// (curl --connect-to other:…:allowed:…), with the check skipped.
//
// Fixed would look like: helloName treats only a recognisably non-TLS
// start as "not TLS"; a first record of any TLS content type (0x14–0x18,
// with a 0x03 version byte) is read as TLS the way a server reads it —
// warning alerts (and empty records) skipped, up to the hello — or the
// tunnel is refused when its first record is not a handshake record.
//
// Severity: low (as the fronting it reopens: it needs an address of an
// allowed name that serves other names by SNI).
//
// Controls: a hello naming the CONNECT host is served; a hello naming
// other.test without the alert is refused (the tunnel closed, the server
// sees no other.test).
func TestAttack40AlertBeforeHelloFronts(t *testing.T) {
	var mu sync.Mutex
	var snis []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "served "+r.TLS.ServerName)
	}))
	srv.TLS = &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		mu.Lock()
		snis = append(snis, h.ServerName)
		mu.Unlock()
		return nil, nil
	}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	target := "rebind.test:" + strconv.Itoa(port)

	j := newSnapJudge()
	j.set("t1", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"rebind.test"}})
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{"rebind.test": {netip.MustParseAddr("127.0.0.1")}}})
	addr := startProxy(t, p)

	// fetch opens a tunnel to rebind.test, writes prefix, then speaks TLS
	// naming sni and GETs /; it returns the body ("" when refused).
	fetch := func(sni string, prefix []byte) string {
		c, br, status := dialConnect(t, addr, "t1", p.Credential("t1"), target)
		if status != "200 Connection established " {
			t.Fatalf("CONNECT %s: %s", target, status)
		}
		if br.Buffered() != 0 {
			t.Fatalf("bytes after the CONNECT answer")
		}
		if len(prefix) > 0 {
			if _, err := c.Write(prefix); err != nil {
				return ""
			}
		}
		tc := tls.Client(c, &tls.Config{ServerName: sni, InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		if err := tc.Handshake(); err != nil {
			return ""
		}
		req, _ := http.NewRequest("GET", "https://"+sni+"/", nil)
		if err := req.Write(tc); err != nil {
			return ""
		}
		resp, err := http.ReadResponse(bufio.NewReader(tc), req)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	seen := func(name string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(snis, name)
	}

	if got := fetch("rebind.test", nil); got != "served rebind.test" {
		t.Fatalf("control: a hello naming the CONNECT host: %q", got)
	}
	if got := fetch("other.test", nil); got != "" || seen("other.test") {
		t.Fatalf("control: a hello naming other.test through a tunnel to rebind.test was served (%q): the SNI check is not in force", got)
	}

	alert := []byte{0x15, 0x03, 0x01, 0x00, 0x02, 0x01, 0x64} // warning, no_renegotiation
	if got := fetch("other.test", alert); got != "" || seen("other.test") {
		t.Errorf("a warning alert record before the ClientHello: the tunnel to rebind.test carried a handshake for other.test (server answered %q, SNIs seen %v): the proxy took the tunnel for not-TLS; want it refused like the same hello without the alert", got, snis)
	}
}

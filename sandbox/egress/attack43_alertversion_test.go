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

// TestAttack43AlertOddVersionFronts (forty-third review, low): the
// fortieth fix refuses a tunnel whose first record is a TLS record of
// another type than a handshake, but recognises one by its second byte
// being 0x03 (a record version 3.x). Go's crypto/tls server does not
// check the version of the first record beyond "below 0x1000": it takes
// an alert record versioned 0x0001 (15 00 01 00 02 01 64), drops it as a
// warning and reads the ClientHello after it. The proxy takes such a start
// for not-TLS and splices it unjudged, so the hello naming other.test
// reaches the address of rebind.test: SNI fronting again, one byte
// changed from the fortieth review's alert.
//
// Fixed would look like: treat any first byte 0x14–0x18 as a TLS record
// whatever its version (refuse what is not a handshake, as a server could
// read it), or refuse every tunnel whose start is not a recognisable
// ClientHello when the policy is restricted.
//
// Controls: a hello naming the CONNECT host is served; a hello naming
// other.test, alone or after the fortieth review's 3.1 alert, is refused.
func TestAttack43AlertOddVersionFronts(t *testing.T) {
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

	if got := fetch("other.test", []byte{0x15, 0x03, 0x01, 0x00, 0x02, 0x01, 0x64}); got != "" || seen("other.test") {
		t.Fatalf("control: the fortieth review's alert (version 3.1) before a hello naming other.test was served (%q)", got)
	}

	for _, alert := range [][]byte{
		{0x15, 0x00, 0x01, 0x00, 0x02, 0x01, 0x64}, // warning, no_renegotiation, record version 0x0001
		{0x15, 0x02, 0x00, 0x00, 0x02, 0x01, 0x64}, // record version 2.0
	} {
		if got := fetch("other.test", alert); got != "" || seen("other.test") {
			t.Errorf("a warning alert record versioned % x before the ClientHello: the tunnel to rebind.test carried a handshake for other.test (server answered %q, SNIs seen %v); want it refused like the 3.1 alert", alert[1:3], got, snis)
			break
		}
	}
}

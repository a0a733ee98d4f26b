package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
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
	target := ingressTarget("ok.example.test", httpIngress(t, vhostHandler, nil))
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))

	// through opens a tunnel to the allowed name and sends first; it
	// returns the answer's body ("" when the tunnel was refused or closed).
	through := func(first string) string {
		got := ""
		inTunnel(t, addr, auth, target, first, func(_ net.Conn, br *bufio.Reader) {
			if b := answerBodies(br, 1); len(b) == 1 {
				got = b[0]
			}
		})
		return got
	}

	// Controls: the allowed name by a plain request to the proxy (the way
	// a plain request goes), and a tunnel that carries another protocol
	// than HTTP reaches the ingress (which answers it 400).
	c := dialProxy(t, addr)
	defer c.Close()
	io.WriteString(c, "GET http://"+target+"/ HTTP/1.1\r\nHost: "+target+"\r\n"+auth+"Connection: close\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("control: a plain request for the allowed name: %v %v", resp, err)
	} else if b, _ := io.ReadAll(resp.Body); string(b) != "allowed" {
		t.Fatalf("control: a plain request for the allowed name got %q", b)
	}
	if got := through("SSH-2.0-probe\r\n\r\n"); got == "" {
		t.Fatal("control: a tunnel carrying another protocol did not reach the ingress")
	}
	for _, first := range []string{
		"GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", // the empty lines a server skips
		"get / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		// The allowed Host first, another after it on the same connection.
		"GET / HTTP/1.1\r\nHost: ok.example.test\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
	} {
		if got := through(first); got != "" {
			t.Errorf("a plain request in a tunnel to ok.example.test reached the ingress (%q): %q", strings.SplitN(first, "\r\n", 3)[:2], got)
		}
	}
}

package egress

import (
	"bufio"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
)

// hostHeaderIngress is a shared ingress that picks the site by the Host
// header line, as Node's http (Express vhost, req.headers.host) and WSGI
// servers (HTTP_HOST, Django's get_host) do for every request, absolute-form
// included; the request target's authority is not read. It ignores Upgrade
// (no WebSocket on these sites), keeps the connection open, and answers
// vhostBody's bodies (404 for another host).
func hostHeaderIngress(t *testing.T) net.Listener {
	t.Helper()
	return acceptEach(t, "tcp4", "127.0.0.1:0", func(c net.Conn) {
		tp := textproto.NewReader(bufio.NewReader(c))
		for {
			if _, err := tp.ReadLine(); err != nil {
				return
			}
			hdr, err := tp.ReadMIMEHeader()
			if err != nil {
				return
			}
			h := hdr.Get("Host")
			if i := strings.LastIndexByte(h, ':'); i >= 0 {
				h = h[:i]
			}
			body, status := vhostBody(h), "200 OK"
			if body == vhostBody("") {
				status = "404 Not Found"
			}
			io.WriteString(c, "HTTP/1.1 "+status+"\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		}
	})
}

// TestAttack65WebSocketAbsoluteFormHost (sixty-fifth review, medium: Host
// fronting in clear past the fifty-sixth and sixtieth fixes): the one
// plain request a tunnel may carry is a WebSocket handshake "whose Host is
// the tunnel's own host". upgradeRequest (tunnelhttp.go) reads the
// handshake with http.ReadRequest and compares req.Host — which Go sets
// from the request target when the target is absolute-form
// (`GET http://allowed/ HTTP/1.1`, RFC 9112 §3.2.2), ignoring the Host
// header line. A handshake whose target names the CONNECT host and whose
// Host header names other.test passes the check (CRLF only, one block,
// nothing after it), and is carried. Servers that pick the site by the
// Host header line (Node's http and what routes on req.headers.host;
// WSGI's HTTP_HOST, Django's get_host; an ingress ACL on hdr(host))
// serve other.test: the handshake itself is the fronted request, and its
// answer comes back through the tunnel.
//
// Fix: in upgradeRequest require the origin form (req.RequestURI begins
// with "/"), or compare both the target's authority and every Host
// header line (req.Header["Host"], which ReadRequest keeps) with the
// tunnel's host, and refuse more than one Host line.
//
// Control: the handshake with an origin-form target and Host other.test
// is refused; the honest handshake (Host the CONNECT host) reaches the
// ingress. Attack: the absolute-form handshake whose Host header names
// other.test must not be served; today other.test's page comes back.
func TestAttack65WebSocketAbsoluteFormHost(t *testing.T) {
	target := ingressTarget("ok.example.test", hostHeaderIngress(t))
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))

	// through opens a tunnel to the allowed name, sends first, and
	// returns the body of the first answer ("" when none came).
	through := func(first string) (body string) {
		if err := inTunnel(t, addr, auth, target, first, func(_ net.Conn, br *bufio.Reader) {
			if b := answerBodies(br, 1); len(b) == 1 {
				body = b[0]
			}
		}); err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		return body
	}
	ws := "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

	// Controls.
	if got := through("GET / HTTP/1.1\r\nHost: " + target + "\r\n" + ws); got != "allowed" {
		t.Fatalf("control: the honest handshake to %s was answered %q", target, got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\n" + ws); got != "" {
		t.Fatalf("control: a handshake with Host other.test was carried: the ingress answered %q", got)
	}

	// Attack: the target names the CONNECT host, the Host line other.test.
	if got := through("GET http://" + target + "/ HTTP/1.1\r\nHost: other.test\r\n" + ws); got != "" {
		t.Errorf("an absolute-form WebSocket handshake naming %s with Host other.test was carried: the ingress answered %q", target, got)
	}
}

package egress

import (
	"bufio"
	"net"
	"testing"
)

// TestAttack60WebSocketBareLFSmugglesARequest (sixtieth review, medium):
// the fifty-seventh review's WebSocket exception lets a tunnel begin with
// one plain request — a GET asking for the websocket upgrade whose Host is
// the CONNECT host — and refuses a request after it (plainHTTP on what
// follows). But upgradeRequest (tunnelhttp.go) takes as the handshake's
// header block every byte up to the first "\r\n\r\n", parses the first
// request in it with http.ReadRequest, and writes the whole block
// upstream. Go's reader (and nginx, Apache, every server that accepts a
// bare LF as a line's end, RFC 9112 §2.2) ends the first request's header
// block at "\n\n": a handshake written with bare LFs, followed by a
// second, CRLF request with Host: other.test, is one "block" to the proxy
// — judged as the handshake alone, its Host the CONNECT host — and two
// pipelined requests to the server. A shared ingress that does not do
// WebSocket on that path answers the handshake as a plain GET (it ignores
// Upgrade) and keeps the connection, then serves the second request's
// Host: fronting in clear past the fifty-sixth review's fix, as with the
// fifty-seventh's pipelined second request, which the check after the
// block refuses.
//
// Fix: the handshake's block must end where the request parsed from it
// ends (feed http.ReadRequest a reader over the peeked bytes and take
// exactly what it consumed, or find the end of headers accepting "\n\n"
// and "\n\r\n" as servers do), and refuse a block that holds anything after
// the request; then judge what follows with plainHTTP as now.
//
// Control: the same two requests with CRLF line ends (the fifty-seventh
// review's shape) are refused, and a tunnel carrying another protocol
// reaches the ingress. Attack: the bare-LF handshake followed by a request
// for other.test must not be served; today the ingress answers it.
func TestAttack60WebSocketBareLFSmugglesARequest(t *testing.T) {
	// The ingress (vhostHandler) does no WebSocket: Upgrade is ignored.
	target := ingressTarget("ok.example.test", httpIngress(t, vhostHandler, nil))
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))

	// through opens a tunnel to the allowed name, sends first, and
	// returns the bodies of the answers read until the connection ends.
	through := func(first string) []string {
		var bodies []string
		inTunnel(t, addr, auth, target, first, func(_ net.Conn, br *bufio.Reader) { bodies = answerBodies(br, -1) })
		return bodies
	}
	has := func(bodies []string, s string) bool {
		for _, b := range bodies {
			if b == s {
				return true
			}
		}
		return false
	}

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n"); len(got) == 0 {
		t.Fatal("control: a tunnel carrying another protocol did not reach the ingress")
	}
	crlf := "GET / HTTP/1.1\r\nHost: " + target + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n" +
		"GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"
	if got := through(crlf); has(got, "SECRET of other.test") {
		t.Fatalf("control: a CRLF handshake followed by a request for other.test was served: %q", got)
	}

	// Attack: the handshake's lines end in a bare LF.
	lf := "GET / HTTP/1.1\nHost: " + target + "\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Version: 13\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\n\n" +
		"GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"
	if got := through(lf); has(got, "SECRET of other.test") {
		t.Errorf("a WebSocket handshake with bare LF line ends carried a second request, Host other.test, in the tunnel to %s: the ingress answered %q", target, got)
	}
}

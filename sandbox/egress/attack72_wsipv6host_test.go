package egress

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// TestAttack72WebSocketIPv6LiteralHostRefused (seventy-second review, low:
// false deny of honest traffic): a WebSocket client tunnelling ws:// to an
// IPv6 literal on the default port (ws://[2606:4700::1111]/ through
// CONNECT [2606:4700::1111]:80) sends "Host: [2606:4700::1111]" — RFC
// 9110 §7.2 and RFC 3986 §3.2.2 write an IPv6 host in brackets, with no
// port when it is the scheme's default. The proxy's tunnel host is the
// address as domain.ParseHost writes it, without brackets ("2606:4700::1111":
// proxy.go target). upgradeRequest (sandbox/egress/tunnelhttp.go) splits
// req.Host with net.SplitHostPort, which fails on a bracketed host without
// a port, keeps "[2606:4700::1111]" whole, and sameHost (sni.go) trims the
// brackets from the tunnel's host only: no match, and the honest handshake
// is refused ("the tunnel carries a plain HTTP request"). With the port
// written ("[…]:8080") the same handshake passes.
//
// Fix: in upgradeRequest, when SplitHostPort fails, strip the brackets of
// an IPv6 literal (or compare through domain.ParseHost on both sides, so
// that the address, not its spelling, is compared).
//
// Control: the handshake with Host "[2606:4700::1111]:80" passes; a name
// without a port passes.
func TestAttack72WebSocketIPv6LiteralHostRefused(t *testing.T) {
	tunnelTo := func(hostport string) (string, int) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n\r\n")))
		if err != nil {
			t.Fatal(err)
		}
		_, host, port, ok := target(r)
		if !ok {
			t.Fatalf("CONNECT %s: no target", hostport)
		}
		return host, port
	}
	handshake := func(hostHeader string) *bufio.Reader {
		return bufio.NewReaderSize(strings.NewReader("GET /chat HTTP/1.1\r\nHost: "+hostHeader+"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"), tunnelPeek)
	}
	// Controls.
	if h, p := tunnelTo("ok.example.test:80"); !func() bool { _, ok := upgradeRequest(handshake("ok.example.test"), h, p); return ok }() {
		t.Fatal("control: an honest handshake to a name on its default port was refused")
	}
	h, p := tunnelTo("[2606:4700::1111]:80")
	if _, ok := upgradeRequest(handshake("[2606:4700::1111]:80"), h, p); !ok {
		t.Fatal("control: the handshake with the port written was refused")
	}
	// Honest traffic.
	if _, ok := upgradeRequest(handshake("[2606:4700::1111]"), h, p); !ok {
		t.Errorf("an honest WebSocket handshake with Host [2606:4700::1111] in a tunnel to [2606:4700::1111]:80 (tunnel host %q) was refused", h)
	}
}

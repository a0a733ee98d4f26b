package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
)

// TestAttack57CleartextWebSocketRefused (fifty-seventh review, low, a false
// deny): a cleartext WebSocket (ws://, a dev server's hot reload, a local
// service's event feed) cannot be spoken through the egress proxy at all
// since the fifty-sixth review's fix. A WebSocket client behind an HTTP
// proxy tunnels (CONNECT host:port, then its `GET /path HTTP/1.1` with
// Upgrade: websocket and the same Host it connected to): tunnelhttp.go
// plainHTTP now sees a request line as the tunnel's first bytes and
// proxy.go connect closes the tunnel (tunnel_refused), whatever its Host —
// even the CONNECT host itself, where no fronting is possible. The other
// route, a plain request to the proxy, cannot carry it either: forward
// strips Upgrade and Connection (hopHeaders), so no protocol switch is
// ever asked of the server. Before the fix the tunnel carried it. The same
// holds for any cleartext protocol that opens with an HTTP/1.1 request line
// and then switches (h2c prior knowledge "PRI * HTTP/2.0", which gRPC
// clients send through CONNECT for a plaintext target).
//
// Control: a plain GET of the allowed origin through the proxy is
// answered. Attack: the WebSocket handshake to the allowed origin, Host
// the CONNECT host, tunnelled as clients do, must be answered 101.
func TestAttack57CleartextWebSocketRefused(t *testing.T) {
	wsOrigin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			io.WriteString(w, "plain")
			return
		}
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
	})
	target := ingressTarget("dev.example.test", httpIngress(t, wsOrigin, nil))
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("dev.example.test"))
	dial := func() (net.Conn, *bufio.Reader) {
		c := dialProxy(t, addr)
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}
	hs := "Host: " + target + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"

	// Control: a plain request for the allowed origin.
	c, br := dial()
	io.WriteString(c, "GET http://"+target+"/ HTTP/1.1\r\nHost: "+target+"\r\n"+auth+"Connection: close\r\n\r\n")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("control: a plain GET of the allowed origin: %v %v", resp, err)
	}

	// The handshake as a plain request: the proxy strips Upgrade.
	c, br = dial()
	io.WriteString(c, "GET http://"+target+"/ws HTTP/1.1\r\n"+hs+auth+"\r\n")
	plain := 0
	if resp, err := http.ReadResponse(br, nil); err == nil {
		plain = resp.StatusCode
	}

	// The handshake as clients send it: tunnelled.
	c, br = dial()
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+auth+"\r\n")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT to the allowed origin: %v %v", resp, err)
	}
	io.WriteString(c, "GET /ws HTTP/1.1\r\n"+hs+"\r\n")
	tunnelled := 0
	if resp, err := http.ReadResponse(br, nil); err == nil {
		tunnelled = resp.StatusCode
	}
	if tunnelled != http.StatusSwitchingProtocols && plain != http.StatusSwitchingProtocols {
		t.Errorf("a cleartext WebSocket to the allowed origin %s cannot be opened through the proxy: tunnelled %d (0: closed), as a plain request %d", target, tunnelled, plain)
	}
}

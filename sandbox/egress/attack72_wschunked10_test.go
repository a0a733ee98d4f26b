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

// chunkedIngress is a stand-in for Apache httpd 2.4 as a shared vhost
// ingress (server/protocol.c ap_read_request: a Transfer-Encoding whose
// final coding is chunked is honoured, and overrides Content-Length,
// whatever the request's version; nginx before 1.21.1 did the same in
// ngx_http_process_request_header). It reads a request line and headers,
// reads and discards a chunked body when Transfer-Encoding is chunked
// (ap_discard_request_body before the next request), ignores Upgrade (no
// WebSocket module on the site), answers vhostBody for the Host header,
// and keeps the connection open for the next request (HTTP/1.1, or
// HTTP/1.0 with a keep-alive token in Connection: ap_set_keepalive).
func chunkedIngress(t *testing.T) net.Listener {
	t.Helper()
	return acceptEach(t, "tcp4", "127.0.0.1:0", func(c net.Conn) {
		br := bufio.NewReader(c)
		tp := textproto.NewReader(br)
		for {
			line, err := tp.ReadLine()
			if err != nil {
				return
			}
			if line == "" {
				continue
			}
			hdr, err := tp.ReadMIMEHeader()
			if err != nil {
				return
			}
			if strings.EqualFold(strings.TrimSpace(hdr.Get("Transfer-Encoding")), "chunked") {
				for {
					sz, err := tp.ReadLine()
					if err != nil {
						return
					}
					sz, _, _ = strings.Cut(sz, ";")
					n, err := strconv.ParseInt(strings.TrimSpace(sz), 16, 64)
					if err != nil {
						return
					}
					if n == 0 {
						if _, err := tp.ReadMIMEHeader(); err != nil { // trailers, then the empty line
							return
						}
						break
					}
					if _, err := io.CopyN(io.Discard, br, n+2); err != nil {
						return
					}
				}
			}
			body := vhostBody(hdr.Get("Host"))
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
			keep := strings.HasSuffix(line, "HTTP/1.1") || strings.Contains(strings.ToLower(hdr.Get("Connection")), "keep-alive")
			if !keep {
				return
			}
		}
	})
}

// TestAttack72WebSocketHTTP10ChunkedSmuggles (seventy-second review,
// medium: Host fronting by request smuggling past upgradeRequest): the one
// plain request a tunnel may carry is a WebSocket handshake "with no
// body". upgradeRequest (sandbox/egress/tunnelhttp.go) asks
// http.ReadRequest for req.ContentLength and req.TransferEncoding, but Go
// drops Transfer-Encoding from an HTTP/1.0 request (net/http/transfer.go
// parseTransferEncoding: "Issue 12785; ignore Transfer-Encoding on
// HTTP/1.0 requests"), so
//
//	GET / HTTP/1.0
//	Host: ok.example.test
//	Upgrade: websocket
//	Connection: keep-alive, Upgrade
//	Transfer-Encoding: chunked
//
// passes as a body-less handshake to the tunnel's own host. Apache httpd
// (and nginx before 1.21.1) honour the chunked coding on an HTTP/1.0
// request: the bytes after the header block are the handshake's body. The
// proxy's one look after the handshake (plainHTTP) sees "0\r\n\r\n", a
// token and a CR, no request line, and carries the rest unread; the
// ingress ends the body at that last chunk, keeps the connection alive
// (the keep-alive token) and reads the next request, "GET / HTTP/1.1
// Host: other.test", from the same tunnel: other.test's page comes back.
//
// Fix: in upgradeRequest refuse a handshake below HTTP/1.1 (RFC 6455 §4.1:
// the handshake is HTTP/1.1 or higher), and refuse any Transfer-Encoding
// or Content-Length header line present in the block itself
// (req.Header is not enough: Go deletes Transfer-Encoding), whatever the
// version.
//
// Control: the honest HTTP/1.1 handshake reaches the ingress; the same
// smuggle as HTTP/1.1 (where Go sees the chunked coding) is refused.
func TestAttack72WebSocketHTTP10ChunkedSmuggles(t *testing.T) {
	target := ingressTarget("ok.example.test", chunkedIngress(t))
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))
	// through opens a tunnel to the allowed name, sends first, and returns
	// the bodies of the answers that came back before the ingress or the
	// proxy closed it.
	through := func(first string) (bodies []string) {
		if err := inTunnel(t, addr, auth, target, first, func(c net.Conn, br *bufio.Reader) {
			c.(*net.TCPConn).CloseWrite()
			bodies = answerBodies(br, -1)
		}); err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		return bodies
	}
	ws := "Upgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	smuggled := "0\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"

	// Controls.
	if got := through("GET / HTTP/1.1\r\nHost: " + target + "\r\n" + ws + "\r\n"); len(got) != 1 || got[0] != "allowed" {
		t.Fatalf("control: the honest handshake to %s was answered %q", target, got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: " + target + "\r\n" + ws + "Transfer-Encoding: chunked\r\n\r\n" + smuggled); len(got) != 0 {
		t.Fatalf("control: an HTTP/1.1 handshake with a chunked body was carried: %q", got)
	}

	// Attack.
	got := through("GET / HTTP/1.0\r\nHost: " + target + "\r\n" + ws + "Transfer-Encoding: chunked\r\n\r\n" + smuggled)
	if strings.Contains(strings.Join(got, "|"), "SECRET") {
		t.Errorf("an HTTP/1.0 WebSocket handshake with Transfer-Encoding: chunked to %s smuggled a request for other.test: the ingress answered %q", target, got)
	}
}

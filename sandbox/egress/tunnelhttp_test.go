package egress

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestPlainHTTPInTunnel: the first bytes of a tunnel that are an HTTP
// request line (after empty lines, any method token, HTTP/2's preface)
// are told from other protocols a client speaks first (SSH's banner,
// SMTP's EHLO, a line that only looks like a request's start).
func TestPlainHTTPInTunnel(t *testing.T) {
	for in, want := range map[string]bool{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n":                    true,
		"\r\n\r\nPOST /a HTTP/1.0\n":                           true,
		"get http://x/ HTTP/1.1\r\n":                           true,
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n":                     true,
		"M-SEARCH * HTTP/1.1\r\n":                              true,
		"SSH-2.0-OpenSSH_9.6\r\n":                              false,
		"GET / HTTP/1.1 \r\n":                                  true, // a blank after the version (nginx skips it)
		"GET http://other.test/\r\n":                           true, // HTTP/0.9
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\nGET / HTTP/1.1\r\n": true, // a PROXY header before a request
		"\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c":               true, // PROXY v2
		"EHLO mail.example\r\n":                                false,
		"HELO a HTTPS\r\n":                                     false,
		"\x00\x01binary":                                       false,
		"GET":                                                  false, // the client closed before the line ended
		"GET /" + strings.Repeat("a", 20000):                   true,  // longer than the buffer, begun like a request
		strings.Repeat("x", 100000) + "\n":                     true,  // a token filling the buffer: a method, for all it tells
		strings.Repeat("@", 100000) + "\n":                     true,  // visible bytes filling the buffer: a method to Apache's "Unsafe" parser
		strings.Repeat("\x01", 100000) + "\n":                  false, // no method at all
		"G(ET / HTTP/1.1\r\n":                                  true,  // a method of visible bytes (Apache, "Unsafe")
		"POST http://other.test/\r\n":                          true,  // HTTP/0.9 with another method (Apache, "Unsafe")
		"GET /\x01 HTTP/1.1\r\n":                               true,  // a control byte in the URI (nginx before 1.21.1)
		"get user/42\r\n":                                      false, // memcached
		"0033git-upload-pack /r\x00host=x\x00":                 false, // git://'s pkt-line
		" GET / HTTP/1.1\r\n":                                  true,  // lead bytes Netty skips (the eighty-eighth review)
		"\x01\x7f\x85GET / HTTP/1.1\r\n":                       true,  // control bytes, C0 and C1, before the method
		"GET\r/ HTTP/1.1\r\n":                                  true,  // CR as the blank after the method (Netty)
		"GET\x01/ HTTP/1.1\r\n":                                false, // a control byte no server named takes as a blank
		"\x01\x02\x03":                                         false, // lead bytes only, then the client closed: carried
		"\x01\x00GET / HTTP/1.1\r\n":                           true,  // a NUL among them (Netty skips it too: the ninetieth review)
		"GET /\x00 HTTP/1.1\r\n":                               true,  // a NUL in the target after a method (Netty reads it)
		"0\f\x02\x01\x01`\a\x02\x01\x03\x04\x00\x80\x00":       false, // an LDAP bind: no method word before the NUL
	} {
		br := bufio.NewReaderSize(strings.NewReader(in), tunnelPeek)
		if got := plainHTTP(br, io.Discard); got != want {
			t.Errorf("plainHTTP(%.30q) = %v, want %v", in, got, want)
		}
	}
}

// TestTunnelWebSocketHandshakeOnly: a tunnel carries a WebSocket handshake
// to its own host, and nothing that begins like a request after it: a
// server that refused the upgrade and kept the connection would read a
// second request naming another site (the ingress here serves
// other.test's secret by Host). A handshake naming another Host is
// refused. Control: the handshake to the tunnel's host is answered (here
// 200: the ingress does not upgrade).
func TestTunnelWebSocketHandshakeOnly(t *testing.T) {
	target := ingressTarget("ok.example.test", httpIngress(t, vhostHandler, nil))
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))
	hs := func(host string) string {
		return "GET /ws HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	}
	// tunnel sends each of sends in turn, reading one answer after each;
	// it returns the bodies read ("" once the tunnel was closed).
	tunnel := func(sends ...string) []string {
		var out []string
		if err := inTunnel(t, addr, auth, target, "", func(c net.Conn, br *bufio.Reader) {
			for _, s := range sends {
				io.WriteString(c, s)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					out = append(out, "")
					return
				}
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
				out = append(out, string(b))
			}
		}); err != nil {
			t.Fatalf("CONNECT: %v", err)
		}
		return out
	}
	if got := tunnel(hs(target)); got[0] != "allowed" {
		t.Fatalf("control: the handshake to the tunnel's host: %q", got)
	}
	if got := tunnel(hs("other.test")); got[0] != "" {
		t.Errorf("a handshake naming other.test was carried: %q", got)
	}
	if got := tunnel(hs(target), "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"); len(got) < 2 || got[1] != "" {
		t.Errorf("a request after a refused upgrade was carried: %q", got)
	}
}

// TestTunnelToANameNeedsAServerName: a TLS hello that names no server in
// a tunnel to a host name is refused: the address would pick a site by
// the Host inside TLS, which the proxy cannot see. Controls: the hello
// naming the tunnel's host completes its handshake, and so does one
// naming none in a tunnel to an IP literal.
func TestTunnelToANameNeedsAServerName(t *testing.T) {
	up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(up.Close)
	port := strconv.Itoa(up.Listener.Addr().(*net.TCPAddr).Port)
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test", "=127.0.0.1"}, AllowLocalhost: true})
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}})
	addr := startProxy(t, p)
	handshake := func(target, serverName string) error {
		c, _, st := dialConnect(t, addr, "t", p.Credential("t"), target)
		if !strings.HasPrefix(st, "200") {
			t.Fatalf("CONNECT %s: %s", target, st)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		tc := tls.Client(c, &tls.Config{ServerName: serverName, InsecureSkipVerify: true})
		defer tc.Close()
		return tc.Handshake()
	}
	if err := handshake("ok.example.test:"+port, "ok.example.test"); err != nil {
		t.Fatalf("control: a hello naming the tunnel's host: %v", err)
	}
	if err := handshake("127.0.0.1:"+port, ""); err != nil {
		t.Fatalf("control: a hello naming no server in a tunnel to an IP literal: %v", err)
	}
	if err := handshake("ok.example.test:"+port, ""); err == nil {
		t.Error("a hello naming no server in a tunnel to ok.example.test completed its handshake")
	}
}

// carryWriter records what plainHTTP carries and signals each carry.
type carryWriter struct {
	got    []byte
	called chan struct{}
}

func (w *carryWriter) Write(b []byte) (int, error) {
	w.got = append(w.got, b...)
	w.called <- struct{}{}
	return len(b), nil
}

// TestPlainHTTPCarriesLeadBytes: control bytes a client sends alone
// before waiting are carried at once (it is not kept waiting for a line
// that may never come), and what it sends after them is judged afresh, as
// a server that skips such bytes reads it (the eighty-eighth review): a
// request after them is seen; another protocol is carried.
func TestPlainHTTPCarriesLeadBytes(t *testing.T) {
	for then, want := range map[string]bool{
		"GET / HTTP/1.1\r\nHost: other.test\r\n\r\n": true,
		"SSH-2.0-probe\r\n":                          false,
	} {
		r, w := io.Pipe()
		cw := &carryWriter{called: make(chan struct{}, 1)}
		done := make(chan bool, 1)
		go func() { done <- plainHTTP(bufio.NewReaderSize(r, tunnelPeek), cw) }()
		if _, err := w.Write([]byte("\x01\x02\r\n")); err != nil {
			t.Fatal(err)
		}
		<-cw.called // carried before anything more was sent
		if string(cw.got) != "\x01\x02\r\n" {
			t.Fatalf("carried %q, want the lead bytes", cw.got)
		}
		go func() { w.Write([]byte(then)); w.Close() }()
		if got := <-done; got != want {
			t.Errorf("after lead bytes, %.20q: plainHTTP = %v, want %v", then, got, want)
		}
	}
}

// TestStatusSniffWebSocketOnly (the ninety-second review): only a 101
// that switches to WebSocket, with the accept of the handshake's key,
// lets the frames after it go unjudged; a 101 to h2c, one with another
// accept, another status or a head cut short do not.
func TestStatusSniffWebSocketOnly(t *testing.T) {
	hs := []byte("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	accept := wsAccept(hs)
	if accept != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("wsAccept = %q, want RFC 6455's example", accept)
	}
	for head, want := range map[string]bool{
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n": true,
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n":                                               false,
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: x\r\n\r\n":                                     false,
		"HTTP/1.1 200 OK\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n":                                         false,
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n":                                                                    false, // cut short
	} {
		s := newStatusSniff(io.Discard)
		s.expect(accept)
		s.Write([]byte(head))
		s.end()
		if got := <-s.switched; got != want {
			t.Errorf("%.40q: switched %v, want %v", head, got, want)
		}
	}
}

package egress

import (
	"bufio"
	"net"
	"strings"
	"testing"
)

// TestAttack59ProxyProtocolHeaderFrontsAnotherHost (fifty-ninth review,
// low): the fix of the fifty-sixth and fifty-seventh reviews closes a
// CONNECT tunnel whose first bytes begin like an HTTP request line
// (tunnelhttp.go plainHTTP/requestLine), and looks at nothing after them
// (proxy.go: plainHTTP is asked once, then the splice carries the rest).
// An ingress that listens with the PROXY protocol (nginx `listen 80
// proxy_protocol`, HAProxy `accept-proxy`, Traefik's proxyProtocol
// entrypoints — set where an L4 balancer in front passes the client's
// address) reads one PROXY header line before the request. Its v1 form,
// "PROXY TCP4 a b p q\r\n", is a token, a space and a line whose last field
// is a port, not "HTTP/…": requestLine answers "not a request" and the
// tunnel is carried, the GET with Host: other.test behind the header
// included, to the ingress, which serves another virtual host than the
// tunnel's in clear. (The v2 form begins "\r\n\r\n\x00": requestLine skips
// the empty lines, meets a NUL and answers "not a request" too.)
//
// A loopback stand-in for such an ingress takes an optional PROXY v1 line,
// then an HTTP/1.1 request, and answers by Host. Control: the plain GET
// with Host other.test is refused (the fix) and the honest GET for the
// tunnel's own host too (a tunnel carries no plain HTTP).
func TestAttack59ProxyProtocolHeaderFrontsAnotherHost(t *testing.T) {
	ln := httpIngress(t, vhostHandler, func(ln net.Listener) net.Listener { return &proxyProtoListener{ln} })
	target := ingressTarget("ok.example.test", ln)
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	// Controls.
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: the fifty-sixth review's fix does not hold: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: ok.example.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: a plain request in a tunnel is carried: %q", got)
	}

	got := through("PROXY TCP4 10.0.0.1 10.0.0.2 5555 80\r\nGET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n")
	if strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to ok.example.test whose request follows a PROXY v1 header was served Host other.test: %q", got)
	}
}

// proxyProtoListener reads an optional PROXY protocol v1 line off each
// connection before the HTTP server sees it, as an ingress listening with
// the PROXY protocol does.
type proxyProtoListener struct{ net.Listener }

func (l *proxyProtoListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(c)
	if b, err := br.Peek(6); err == nil && string(b) == "PROXY " {
		br.ReadString('\n')
	}
	return &readerConn{Conn: c, r: br}, nil
}

type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

package egress

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// hostHeaderIngress is a shared ingress that picks the site by the Host
// header line, as Node's http (Express vhost, req.headers.host) and WSGI
// servers (HTTP_HOST, Django's get_host) do for every request, absolute-form
// included; the request target's authority is not read. It ignores Upgrade
// (no WebSocket on these sites) and keeps the connection open. sites maps
// a host (without port) to its body; it returns the port.
func hostHeaderIngress(t *testing.T, sites map[string]string) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
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
					body, ok := sites[h]
					status := "200 OK"
					if !ok {
						status, body = "404 Not Found", "no such vhost"
					}
					io.WriteString(c, "HTTP/1.1 "+status+"\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
				}
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
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
	port := hostHeaderIngress(t, map[string]string{"ok.example.test": "allowed", "other.test": "SECRET of other.test"})
	target := "ok.example.test:" + strconv.Itoa(port)

	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("t:"+p.Credential("t"))) + "\r\n"

	// through opens a tunnel to the allowed name, sends first, and
	// returns the body of the first answer ("" when none came).
	through := func(first string) string {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+auth+"\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("CONNECT %s: %v %v", target, resp, err)
		}
		io.WriteString(c, first)
		inner, err := http.ReadResponse(br, nil)
		if err != nil {
			return ""
		}
		b, _ := io.ReadAll(inner.Body)
		return string(b)
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

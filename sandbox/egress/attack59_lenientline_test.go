package egress

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// nginxIngress is a loopback stand-in for a shared ingress whose request
// line parser is nginx's (src/http/ngx_http_parse.c
// ngx_http_parse_request_line): a method, one or more spaces, a URI, and
// then either the end of the line (an HTTP/0.9 simple request: no headers,
// the body alone is answered, the virtual server chosen by an absolute
// URI's host) or one or more spaces, "HTTP/major.minor", and any number of
// spaces before the CRLF (state sw_spaces_after_digit). It answers
// "SECRET of other.test" for the host other.test and "allowed" for
// ok.example.test, as a shared ingress answers each virtual host.
func nginxIngress(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	body := func(host string) string {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		switch host {
		case "ok.example.test":
			return "allowed"
		case "other.test":
			return "SECRET of other.test"
		}
		return "no such vhost"
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				line, err := br.ReadString('\n')
				for err == nil && (line == "\r\n" || line == "\n") {
					line, err = br.ReadString('\n')
				}
				if err != nil {
					return
				}
				line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
				method, rest, ok := strings.Cut(line, " ")
				if !ok || method == "" {
					io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
					return
				}
				rest = strings.TrimLeft(rest, " ")
				uri, version, _ := strings.Cut(rest, " ")
				version = strings.TrimRight(strings.TrimLeft(version, " "), " ")
				host := ""
				if u, err := url.Parse(uri); err == nil && u.Host != "" {
					host = u.Host
				}
				if version == "" {
					// HTTP/0.9: no headers, the body alone.
					io.WriteString(c, body(host))
					return
				}
				if !strings.HasPrefix(version, "HTTP/") {
					io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
					return
				}
				for {
					h, err := br.ReadString('\n')
					if err != nil {
						return
					}
					h = strings.TrimRight(h, "\r\n")
					if h == "" {
						break
					}
					if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(k, "Host") && host == "" {
						host = strings.TrimSpace(v)
					}
				}
				b := body(host)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(b))+"\r\nConnection: close\r\n\r\n"+b)
			}(c)
		}
	}()
	return ln
}

// TestAttack59LenientRequestLineFrontsAnotherHost (fifty-ninth review,
// medium): the fifty-sixth and fifty-seventh reviews' fix closes a
// CONNECT tunnel whose first bytes are a plain HTTP request line, so that a
// shared ingress at the allowed name's address is not asked, in clear, for
// another Host. requestLine (tunnelhttp.go) takes a line for a request only
// when, after a method and a space, its last space-separated field begins
// "HTTP/". nginx — the commonest shared ingress — accepts two request
// lines that are not of that shape (ngx_http_parse_request_line):
//
//   - "GET / HTTP/1.1 \r\n": spaces after the version are skipped
//     (state sw_spaces_after_digit). The line's last field is "" after
//     its last space, so requestLine answers "not a request" and the
//     tunnel is carried unread: a full HTTP/1.1 request with
//     Host: other.test, and every request after it on the connection.
//   - "GET http://other.test/\r\n": an HTTP/0.9 simple request, whose
//     virtual server nginx picks by the absolute URI's host; its last
//     field "http://other.test/" is not "HTTP/…" (the compare is case
//     sensitive and the version absent), carried unread.
//
// Either way the agent holding the sandbox's shell reads (and, in the
// path and query, writes to) a host its policy does not allow, through a
// tunnel to one it does: the fronting the fix closes, one trailing space
// away. The proxy's check asks whether a line is an HTTP request as Go's
// server reads one; an ingress reads more.
//
// Control: a tunnel carrying another protocol reaches the ingress, and
// the plain "GET / HTTP/1.1" with Host other.test is refused (the fix).
func TestAttack59LenientRequestLineFrontsAnotherHost(t *testing.T) {
	ln := nginxIngress(t)
	port := ln.Addr().(*net.TCPAddr).AddrPort().Port()
	target := "ok.example.test:" + strconv.Itoa(int(port))

	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("t:"+p.Credential("t"))) + "\r\n"

	// through opens a tunnel to the allowed name, sends first, and returns
	// all the tunnel carried back until it was closed ("" when the proxy
	// refused the tunnel or closed it).
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
			return ""
		}
		io.WriteString(c, first)
		b, _ := io.ReadAll(br)
		return string(b)
	}

	// Controls.
	if got := through("GET / HTTP/1.1\r\nHost: ok.example.test\r\n\r\n"); got != "" {
		t.Fatalf("control: the fifty-sixth review's fix does not hold for a plain request: %q", got)
	}
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: the fifty-sixth review's fix does not hold: %q", got)
	}

	if got := through("GET / HTTP/1.1 \r\nHost: other.test\r\nConnection: close\r\n\r\n"); strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to ok.example.test whose request line ends in a space after HTTP/1.1 was served Host other.test: %q", got)
	}
	if got := through("GET http://other.test/\r\n"); strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to ok.example.test carrying an HTTP/0.9 request for http://other.test/ was served other.test: %q", got)
	}
}

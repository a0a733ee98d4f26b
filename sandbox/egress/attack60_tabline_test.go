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

// haproxyIngress is a loopback stand-in for a shared ingress whose request
// line parser is HAProxy's (src/h1.c h1_headers_to_hdr_list: states
// H1_MSG_RQMETH, H1_MSG_RQMETH_SP, H1_MSG_RQURI, H1_MSG_RQURI_SP): the
// method is a token ended by HTTP_IS_SPHT — a space OR a horizontal tab —
// and so are the URI and the runs between the three fields. It answers
// "SECRET of other.test" for Host other.test and "allowed" for
// ok.example.test, as an ingress routes each virtual host (a `use_backend
// … if { hdr(host) … }` rule).
func haproxyIngress(t *testing.T) net.Listener {
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
				f := strings.FieldsFunc(strings.TrimRight(line, "\r\n"), func(r rune) bool { return r == ' ' || r == '\t' })
				if len(f) != 3 || !haproxyVersion(f[2]) {
					io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
					return
				}
				host := ""
				if u, err := url.Parse(f[1]); err == nil && u.Host != "" {
					host = u.Host
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
				if h, _, err := net.SplitHostPort(host); err == nil {
					host = h
				}
				b := "no such vhost"
				switch host {
				case "ok.example.test":
					b = "allowed"
				case "other.test":
					b = "SECRET of other.test"
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(b))+"\r\nConnection: close\r\n\r\n"+b)
			}(c)
		}
	}()
	return ln
}

// haproxyVersion is HAProxy 2.x's (before 3.0) check of a request's version
// (h1_process_req_vsn, without accept-invalid-http-request): eight bytes,
// a '/' fifth, a digit, a '.', a digit. The four letters before the '/'
// are not compared (later releases compare them with "HTTP/").
func haproxyVersion(v string) bool {
	return len(v) == 8 && v[4] == '/' && v[5] >= '0' && v[5] <= '9' && v[6] == '.' && v[7] >= '0' && v[7] <= '9'
}

// TestAttack60TabSeparatedRequestLineFronts (sixtieth review, medium):
// the fifty-sixth review closes a CONNECT tunnel whose first bytes are a
// plain HTTP request, so a shared ingress at the allowed name's address
// is not asked, in clear, for another Host. requestLine (tunnelhttp.go)
// takes the first bytes for a request only when a method token is
// followed by a SPACE (`b[j] != ' '` answers "not a method and a space",
// not a request, at once); the fifty-ninth review widened what follows the
// URI, not what follows the method. HAProxy — a shared ingress as common
// as nginx — ends the method, and the URI, at a space or a horizontal tab
// (HTTP_IS_SPHT in src/h1.c, in the default, non-lenient parser): a tunnel
// to ok.example.test that begins "GET\t/\tHTTP/1.1\r\nHost: other.test"
// is carried unread, and the ingress serves other.test.
//
// Fix: in requestLine, a method token followed by any blank (SP or HT,
// and for safety any byte a server may take for whitespace: VT, FF, CR
// alone) is a method and a separator; read the line's fields on those
// blanks (bytes.Fields already does, after the method).
//
// Control: the same request with spaces is refused (the tunnel closed
// before the ingress answers), and a tunnel carrying another protocol
// reaches the ingress. Attack: the tab-separated request must be refused.
func TestAttack60TabSeparatedRequestLineFronts(t *testing.T) {
	ln := haproxyIngress(t)
	port := ln.Addr().(*net.TCPAddr).AddrPort().Port()
	target := "ok.example.test:" + strconv.Itoa(int(port))

	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("t:"+p.Credential("t"))) + "\r\n"

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
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"); strings.Contains(got, "SECRET") {
		t.Fatalf("control: a space-separated request for other.test was carried: %q", got)
	}
	// Attack.
	for _, first := range []string{
		"GET\t/\tHTTP/1.1\r\nHost: other.test\r\n\r\n",
		"GET\thttp://other.test/ HTTP/1.1\r\n\r\n",
	} {
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a tab-separated request line (%q) in a tunnel to %s reached the ingress as other.test: %q", strings.SplitN(first, "\r\n", 2)[0], target, got)
		}
	}
}

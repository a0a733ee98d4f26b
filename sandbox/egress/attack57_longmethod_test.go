package egress

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack57LongMethodFrontsAnotherHost (fifty-seventh review, medium):
// the fifty-sixth review's fix closes a CONNECT tunnel whose first bytes
// are a plain HTTP request line (tunnelhttp.go plainHTTP/requestLine), so
// that a shared ingress at the allowed name's address is not asked, in
// clear, for another Host. requestLine gives up on a method token longer
// than maxMethod (32 bytes: "no method is that long") and answers "not a
// request" — the tunnel is then carried unread. But a server takes a method
// of any length: Go's net/http (request.go readRequest → parseRequestLine
// and validMethod, which checks only that it is a token) serves
// `AAAA…(40 bytes) / HTTP/1.1` to the handler, and a handler that does not
// look at the method (most do not: a file server, a mux without method
// patterns, a CDN's cache) answers the Host it names. Worse, only the
// tunnel's first bytes are ever looked at (proxy.go connect: plainHTTP is
// asked once, then the splice carries the rest): the long-method request
// keeps the connection alive, and every later request on it — an ordinary
// `GET / HTTP/1.1` with Host: other.test — goes to the ingress unread.
// The fronting the fifty-sixth review closed is open again with one
// 33-byte method.
//
// One loopback Go server stands for the shared ingress, answering
// "allowed" for Host ok.example.test and "SECRET of other.test" for Host
// other.test. Control: a tunnel carrying another protocol reaches it, and
// the plain GET with Host other.test in a tunnel is refused (the fix).
// Attack: a first request whose method is 40 token bytes, Host
// other.test, must not be served; then a second, ordinary GET for
// other.test after a long-method first request must not be either.
func TestAttack57LongMethodFrontsAnotherHost(t *testing.T) {
	ingress := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			h = r.Host
		}
		switch h {
		case "ok.example.test":
			io.WriteString(w, "allowed")
		case "other.test":
			io.WriteString(w, "SECRET of other.test")
		default:
			http.Error(w, "no such vhost", http.StatusNotFound)
		}
	})}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go ingress.Serve(ln)
	t.Cleanup(func() { ingress.Close() })
	port := ln.Addr().(*net.TCPAddr).AddrPort().Port()
	target := "ok.example.test:" + strconv.Itoa(int(port))

	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("t:"+p.Credential("t"))) + "\r\n"

	// through opens a tunnel to the allowed name, sends first, and returns
	// the bodies of the answers it gets ("" each when the tunnel was
	// refused or closed).
	through := func(first string, answers int) []string {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+auth+"\r\n")
		br := bufio.NewReader(c)
		out := make([]string, answers)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			return out
		}
		io.WriteString(c, first)
		for i := range out {
			inner, err := http.ReadResponse(br, nil)
			if err != nil {
				return out
			}
			b, _ := io.ReadAll(inner.Body)
			out[i] = string(b)
		}
		return out
	}

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n", 1); got[0] == "" {
		t.Fatal("control: a tunnel carrying another protocol did not reach the ingress")
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", 1); got[0] != "" {
		t.Fatalf("control: the fifty-sixth review's fix does not hold: %q", got)
	}

	long := strings.Repeat("A", 40)
	if got := through(long+" / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", 1); got[0] != "" {
		t.Errorf("a tunnel to ok.example.test whose first request has a %d-byte method was served Host other.test: %q", len(long), got[0])
	}
	got := through(long+" / HTTP/1.1\r\nHost: ok.example.test\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", 2)
	if got[1] != "" {
		t.Errorf("after a long-method first request, an ordinary GET for other.test in the same tunnel was served: %q", got)
	}
}

package egress

import (
	"bufio"
	"encoding/base64"
	"fmt"
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

// The set-up the tunnel-fronting attack tests share: a loopback stand-in
// for a shared ingress that answers each virtual host, a proxy whose one
// turn may reach the allowed name, and a tunnel through it to that name.

// exampleTestPolicy allows **.example.test only, and localhost, so that an
// allowed name may resolve to a test's loopback upstream.
var exampleTestPolicy = domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true}

// loopbackNames resolves each of names to 127.0.0.1.
func loopbackNames(names ...string) map[string][]netip.Addr {
	m := map[string][]netip.Addr{}
	for _, n := range names {
		m[n] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	return m
}

// vhostBody is what a shared ingress serves for host (a port after it
// ignored): "allowed" for ok.example.test, "SECRET of other.test" for
// other.test, "no such vhost" for any other.
func vhostBody(host string) string {
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

// vhostHandler answers a request by its Host as vhostBody does, a host it
// does not serve with 404. It does no WebSocket: Upgrade is ignored.
var vhostHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b := vhostBody(r.Host)
	if b == "no such vhost" {
		http.Error(w, b, http.StatusNotFound)
		return
	}
	io.WriteString(w, b)
})

// httpIngress serves h with Go's HTTP server on a loopback listener (wrap,
// when not nil, wraps what the server accepts from) and returns the
// listener.
func httpIngress(t *testing.T, h http.Handler, wrap func(net.Listener) net.Listener) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	served := ln
	if wrap != nil {
		served = wrap(ln)
	}
	go srv.Serve(served)
	t.Cleanup(func() { srv.Close() })
	return ln
}

// requestLineParser reads a request line as one ingress's parser does (line
// as read, its line end included): the request's URI, whether it is an
// HTTP/0.9 simple request (no headers follow, the body alone is answered)
// and whether it is a request at all (not: answered 400).
type requestLineParser func(line string) (uri string, http09, ok bool)

// vhostIngress is a loopback stand-in for a shared ingress that reads a
// request's line with parse, then its headers, and answers by the absolute
// URI's host, or else the Host header, as vhostBody does. It returns the
// listener.
func vhostIngress(t *testing.T, parse requestLineParser) net.Listener {
	t.Helper()
	return acceptEach(t, "tcp4", "127.0.0.1:0", func(c net.Conn) {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		line, err := br.ReadString('\n')
		for err == nil && (line == "\r\n" || line == "\n") {
			line, err = br.ReadString('\n')
		}
		if err != nil {
			return
		}
		uri, http09, ok := parse(line)
		if !ok {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
			return
		}
		host := ""
		if u, err := url.Parse(uri); err == nil && u.Host != "" {
			host = u.Host
		}
		if http09 {
			io.WriteString(c, vhostBody(host))
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
		b := vhostBody(host)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(b))+"\r\nConnection: close\r\n\r\n"+b)
	})
}

// ingressTarget is the allowed name host at the port ln listens on.
func ingressTarget(host string, ln net.Listener) string {
	return host + ":" + strconv.Itoa(int(ln.Addr().(*net.TCPAddr).AddrPort().Port()))
}

// tunnelProxy starts a proxy for one turn, "t", under policy, resolving
// names from names; it returns the proxy's address and the turn's
// Proxy-Authorization header line.
func tunnelProxy(t *testing.T, policy domain.NetworkPolicy, names map[string][]netip.Addr) (addr, auth string) {
	t.Helper()
	j := newSnapJudge()
	j.set("t", policy)
	p := NewProxy(j, &mapResolver{m: names})
	addr = startProxy(t, p)
	auth = "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("t:"+p.Credential("t"))) + "\r\n"
	return addr, auth
}

// dialProxy connects to the proxy at addr (within 5s), the connection's
// deadline 10s away; the caller closes it.
func dialProxy(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

// inTunnel asks the proxy at addr (with auth) for a tunnel to target and,
// once it answers 200, writes first into the tunnel and hands read the
// connection and what comes back. It returns the proxy's answer and the
// error reading it ("%v %v"), read not called, when the tunnel was
// refused; nil when it was opened.
func inTunnel(t *testing.T, addr, auth, target, first string, read func(c net.Conn, br *bufio.Reader)) error {
	t.Helper()
	c := dialProxy(t, addr)
	defer c.Close()
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+auth+"\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%v %v", resp, err)
	}
	io.WriteString(c, first)
	read(c, br)
	return nil
}

// answerBodies reads answers off br, at most n of them (n < 0: until the
// connection ends or an answer cannot be read), and returns their bodies.
func answerBodies(br *bufio.Reader, n int) []string {
	var bodies []string
	for n < 0 || len(bodies) < n {
		inner, err := http.ReadResponse(br, nil)
		if err != nil {
			break
		}
		b, _ := io.ReadAll(inner.Body)
		bodies = append(bodies, string(b))
	}
	return bodies
}

// tunnelThrough starts a proxy as tunnelProxy does and returns through:
// it opens a tunnel to target, sends first, and returns all the tunnel
// carried back until it was closed ("" when the proxy refused the tunnel
// or closed it).
func tunnelThrough(t *testing.T, target string, policy domain.NetworkPolicy, names map[string][]netip.Addr) func(first string) string {
	t.Helper()
	addr, auth := tunnelProxy(t, policy, names)
	return func(first string) string {
		got := ""
		inTunnel(t, addr, auth, target, first, func(_ net.Conn, br *bufio.Reader) {
			b, _ := io.ReadAll(br)
			got = string(b)
		})
		return got
	}
}

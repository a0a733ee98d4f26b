package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack21HugeHeadersHeldByTheProxy: the server's API refuses a header
// block above --max-header-bytes (64 KiB by default, 431), but the
// egress proxy's servers (the listener in each command's namespace,
// AttachAs, and --egress-listen) set no MaxHeaderBytes: net/http's default
// of 1 MiB applies, and a request's header block is held in the server's
// memory while it arrives, for up to ReadHeaderTimeout (10 s), on every
// connection a command opens (nothing bounds how many: see
// TestAttack21ProxyConnectionsExhaustTheServer). 100 connections of one
// command, each 1 MiB of headers without the final blank line, hold
// about 100 MiB of the server's heap; the command's descriptor limit
// allows thousands. Wanted: the proxy's servers take the API's header
// limit (a request above it answered 431), so that a command's connections
// cost the server a bounded amount each. Control: an ordinary request
// through the same listener is judged (403 for a host the policy does not
// allow).
func TestAttack21HugeHeadersHeldByTheProxy(t *testing.T) {
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}})
	p := NewProxy(j, &mapResolver{})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String() // the listening socket lives on in f
	f, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		t.Fatal(err)
	}
	stop, err := p.Attach("t")(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	roundTrip := func(extra string) int {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		go io.WriteString(c, "GET http://other.test/ HTTP/1.1\r\nHost: other.test\r\n"+extra+"Connection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := roundTrip(""); code != http.StatusForbidden {
		t.Fatalf("control: an ordinary request to a host the policy does not allow: %d, want 403", code)
	}
	line := "X-Pad: " + strings.Repeat("p", 1000) + "\r\n"
	block := strings.Repeat(line, 1000) // about 1 MiB

	if code := roundTrip(block); code != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a request with ~1 MiB of headers through the command's proxy listener: %d, want 431 (the API's own limit is 64 KiB)", code)
	}
}

package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestListenerBounds: a listener Limit wraps holds at most
// MaxConnsPerListener connections, and all of the proxy's listeners
// MaxConns; a connection past either is answered 503 naming the bound and
// closed, and one closed frees its slots for the next (the control).
func TestListenerBounds(t *testing.T) {
	p := NewProxy(newSnapJudge(), &mapResolver{})
	p.MaxConnsPerListener, p.MaxConns = 2, 3
	serve := func(shared bool) (string, chan net.Conn) {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		l := p.Limit(ln, shared)
		t.Cleanup(func() { l.Close() })
		accepted := make(chan net.Conn, 8)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted <- c
			}
		}()
		return ln.Addr().String(), accepted
	}
	a, aIn := serve(false)
	b, bIn := serve(false)
	dial := func(addr string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	kept := func(addr string, in chan net.Conn) net.Conn {
		dial(addr)
		select {
		case c := <-in:
			return c
		case <-time.After(10 * time.Second):
			t.Fatalf("a connection to %s within the bounds was not accepted", addr)
		}
		return nil
	}
	refused := func(addr, why string) {
		c := dial(addr)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("a connection to %s past the bound: %v, want a 503", addr, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), why) {
			t.Fatalf("a connection to %s past the bound: %d %q, want 503 naming %q", addr, resp.StatusCode, body, why)
		}
	}
	a1 := kept(a, aIn)
	kept(a, aIn)
	refused(a, "this listener already holds 2 connections")
	kept(b, bIn)
	refused(b, "the proxy holds as many connections as it may")
	a1.Close()
	kept(b, bIn)
	refused(a, "the proxy holds as many connections as it may")

	// A shared listener (--egress-listen) holds half of the proxy's bound,
	// whatever a command's: three of six, more than a command's two, and
	// a command's listener still has the rest.
	p = NewProxy(newSnapJudge(), &mapResolver{})
	p.MaxConnsPerListener, p.MaxConns = 2, 6
	sh, shIn := serve(true)
	for range 3 {
		kept(sh, shIn)
	}
	refused(sh, "this listener already holds 3 connections")
	cmd, cmdIn := serve(false)
	kept(cmd, cmdIn)
	kept(cmd, cmdIn)
}

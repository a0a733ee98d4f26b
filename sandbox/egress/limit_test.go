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

// serveLimited serves a listener wrapped by limit, its accepted
// connections sent on the channel returned.
func serveLimited(t *testing.T, limit func(net.Listener) net.Listener) (string, chan net.Conn) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := limit(ln)
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

func dialLimited(t *testing.T, addr string) net.Conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// keptConn dials addr and returns the connection its listener accepted.
func keptConn(t *testing.T, addr string, in chan net.Conn) net.Conn {
	t.Helper()
	dialLimited(t, addr)
	select {
	case c := <-in:
		return c
	case <-time.After(10 * time.Second):
		t.Fatalf("a connection to %s within the bounds was not accepted", addr)
	}
	return nil
}

// refusedConn dials addr and wants a 503 naming why.
func refusedConn(t *testing.T, addr, why string) {
	t.Helper()
	c := dialLimited(t, addr)
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

// TestListenerBounds: a listener Limit wraps holds at most
// MaxConnsPerListener connections, and all of the proxy's listeners
// MaxConns; a connection past either is answered 503 naming the bound and
// closed, and one closed frees its slots for the next (the control).
func TestListenerBounds(t *testing.T) {
	p := NewProxy(newSnapJudge(), &mapResolver{})
	p.MaxConnsPerListener, p.MaxConns = 2, 3
	serve := func(shared bool) (string, chan net.Conn) {
		return serveLimited(t, func(ln net.Listener) net.Listener { return p.Limit(ln, shared) })
	}
	a, aIn := serve(false)
	b, bIn := serve(false)
	a1 := keptConn(t, a, aIn)
	keptConn(t, a, aIn)
	refusedConn(t, a, "this listener already holds 2 connections")
	keptConn(t, b, bIn)
	refusedConn(t, b, "the proxy holds as many connections as it may")
	a1.Close()
	keptConn(t, b, bIn)
	refusedConn(t, a, "the proxy holds as many connections as it may")

	// A shared listener (--egress-listen) holds half of the proxy's bound,
	// whatever a command's: three of six, more than a command's two, and
	// a command's listener still has the rest.
	p = NewProxy(newSnapJudge(), &mapResolver{})
	p.MaxConnsPerListener, p.MaxConns = 2, 6
	sh, shIn := serve(true)
	for range 3 {
		keptConn(t, sh, shIn)
	}
	refusedConn(t, sh, "this listener already holds 3 connections")
	cmd, cmdIn := serve(false)
	keptConn(t, cmd, cmdIn)
	keptConn(t, cmd, cmdIn)
}

// TestPrincipalBound: the listeners of one principal's commands open at
// once hold at most a quarter of MaxConns together, so a runtime that
// starts many commands cannot take every command's slots; past it a
// connection is answered 503 naming the bound. Controls: another
// principal's command still gets its connections, and one of the first
// principal's closed frees a slot for it.
func TestPrincipalBound(t *testing.T) {
	p := NewProxy(newSnapJudge(), &mapResolver{})
	p.MaxConnsPerListener, p.MaxConns = 4, 12 // a principal: 3
	serve := func(principal string) (string, chan net.Conn) {
		return serveLimited(t, func(ln net.Listener) net.Listener { return p.LimitFor(ln, principal) })
	}
	a1, a1In := serve("principal:agent")
	a2, a2In := serve("principal:agent")
	first := keptConn(t, a1, a1In)
	keptConn(t, a1, a1In)
	keptConn(t, a2, a2In)
	refusedConn(t, a2, "this principal's commands already hold 3 connections")
	refusedConn(t, a1, "this principal's commands already hold 3 connections")
	// Another principal's command keeps its own.
	b, bIn := serve("principal:other")
	for range 3 {
		keptConn(t, b, bIn)
	}
	first.Close()
	keptConn(t, a2, a2In)
}

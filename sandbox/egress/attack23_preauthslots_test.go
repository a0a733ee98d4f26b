package egress

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack23UnauthenticatedHoldTheSharedBound: the shared listener
// (--egress-listen) is "bounded by the proxy's bound on all its
// connections" (MaxConns, 4,096), the same slots every command's listener
// draws from. A connection to it takes a slot before it shows any
// credential, and a request without one is answered 407 on a kept-alive
// connection: a client that knows no turn and holds no credential, sending
// one such request per IdleTimeout (2 min) on each of MaxConns
// connections, takes every slot, and every sandboxed command of every turn
// is answered 503 for as long as it likes. Wanted: a connection that fails
// authentication is closed (Connection: close on the 407), and the shared
// listener kept below the whole bound (commands keep a share of their
// own). Control: a command connects while the shared listener is idle.
func TestAttack23UnauthenticatedHoldTheSharedBound(t *testing.T) {
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true})
	p := NewProxy(j, &mapResolver{})
	p.MaxConnsPerListener, p.MaxConns = 2, 4
	target := listenOn(t, "127.0.0.1:0", func(c net.Conn) { c.Close() })
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := p.Server(p.Handler(), 10*time.Second)
	go srv.Serve(p.Limit(ln, true))
	t.Cleanup(func() { srv.Close() })
	cl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	clAddr := cl.Addr().String() // the listening socket lives on in f
	f, _ := cl.(*net.TCPListener).File()
	cl.Close()
	stop, err := p.AttachAs("t", domain.Actor{Name: "agent", Role: domain.RoleRuntime})(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	request := func(addr string, req *http.Request) (net.Conn, int) {
		t.Helper()
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if err := req.Write(c); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return c, resp.StatusCode
	}
	connect := func() int {
		c, st := request(clAddr, &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}})
		c.Close()
		return st
	}
	if st := connect(); st != http.StatusOK {
		t.Fatalf("control: a command's CONNECT while the shared listener is idle: %d", st)
	}
	waitFor(t, "the control's tunnel closed", func() bool { return p.Open("t") == 0 })
	for range 4 {
		u, _ := url.Parse("http://anything.test/")
		if _, st := request(ln.Addr().String(), &http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: http.Header{}}); st != http.StatusProxyAuthRequired {
			t.Fatalf("control: a request without credentials to the shared listener: %d", st)
		}
	}
	if st := connect(); st != http.StatusOK {
		t.Errorf("after 4 connections that never authenticated were kept open on the shared listener, a command's CONNECT is answered %d", st)
	}
}

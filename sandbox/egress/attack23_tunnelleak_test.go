package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack23TunnelOutlivesItsCommand: each command's listener holds at
// most MaxConnsPerListener connections and all of them MaxConns, a slot
// freed "when it is closed (also after a hijack: the tunnel closes the
// same connection)". But the command's end (AttachAs's stop: srv.Close)
// closes the listener and the connections net/http still tracks, not the
// hijacked tunnels, and a tunnel has no idle timeout: one whose client is
// gone (its FIN is passed on as a half close) and whose upstream stays
// silent is open until the turn ends, its slot of MaxConns held. A command
// opens 256 such tunnels to any silent service it may reach and exits;
// the next does the same: sixteen commands of one turn, one after the
// other, take the proxy's 4,096 and every other turn's command, and the
// shared listener, is answered 503 until that turn ends. Wanted: a
// command's stop closes its tunnels (or a tunnel carrying nothing either
// way for IdleTimeout is closed). Control: a tunnel whose upstream closes
// frees its slot for the next command.
func TestAttack23TunnelOutlivesItsCommand(t *testing.T) {
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true})
	j.set("u", domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true})
	p := NewProxy(j, &mapResolver{})
	p.MaxConnsPerListener, p.MaxConns = 2, 8 // a principal's commands: 2 (TestPrincipalBound)
	eof := make(chan net.Conn, 4)
	silent := listenOn(t, "127.0.0.1:0", func(c net.Conn) { io.Copy(io.Discard, c); eof <- c })
	closing := listenOn(t, "127.0.0.1:0", func(c net.Conn) { io.Copy(io.Discard, c); c.Close() })
	// command starts a command of turnID: its listener in "its namespace",
	// served by AttachAs; it returns the listener's address and the stop
	// the sandbox calls when the command ends.
	command := func(turnID string) (string, func()) {
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
		stop, err := p.AttachAs(turnID, domain.Actor{Name: "agent", Role: domain.RoleRuntime})(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		return addr, stop
	}
	tunnel := func(proxy, target string) (net.Conn, string) {
		c, err := net.Dial("tcp4", proxy)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(10 * time.Second))
		req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}}
		if err := req.Write(c); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), req)
		if err != nil {
			t.Fatal(err)
		}
		return c, resp.Status
	}
	// Control: a command's tunnels to a service that closes free their
	// slots when the command ends.
	a, stop := command("t")
	for range 2 {
		c, st := tunnel(a, closing)
		if !strings.HasPrefix(st, "200") {
			t.Fatalf("control: CONNECT: %s", st)
		}
		c.Close()
	}
	stop()
	waitFor(t, "the closed tunnels untracked", func() bool { return p.Open("t") == 0 })
	b, stop := command("t")
	for range 2 {
		c, st := tunnel(b, silent)
		if !strings.HasPrefix(st, "200") {
			t.Fatalf("control: CONNECT after the first command's tunnels closed: %s", st)
		}
		c.Close() // the command exits: its sockets close
		<-eof     // the proxy passed its FIN on
	}
	stop() // the sandbox ends the command
	deadline := time.Now().Add(5 * time.Second)
	for p.Open("t") != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling a condition, not standing in for it
	}
	other, _ := command("u")
	if _, st := tunnel(other, closing); !strings.HasPrefix(st, "200") {
		t.Errorf("after a command of turn t ended, its %d tunnels (client gone, upstream silent) still hold the proxy's slots: another turn's command is answered %s", p.Open("t"), st)
	}
}

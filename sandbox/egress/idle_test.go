package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"turnstile/domain"
)

// TestIdleConnectionsAreClosed: a command's keep-alive connection to the
// proxy that carries nothing for IdleTimeout is closed by the proxy (a
// command holding idle connections would hold the server's descriptors),
// while the same connection carries a second request sent at once (the
// control: keep-alive works).
func TestIdleConnectionsAreClosed(t *testing.T) {
	_, hp := origin(t, "hello")
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true, AllowPrivateNetworks: true})
	p := NewProxy(j, &mapResolver{})
	p.IdleTimeout = 200 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
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
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := range 2 {
		io.WriteString(c, "GET http://"+hp+"/ HTTP/1.1\r\nHost: "+hp+"\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d on one connection: %v", i+1, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "hello" {
			t.Fatalf("request %d: %d %q", i+1, resp.StatusCode, body)
		}
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("an idle connection to the proxy: read %d, %v; want EOF once IdleTimeout passed", n, err)
	}
}

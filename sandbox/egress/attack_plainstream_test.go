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

// TestAttackPlainHTTPOutlivesNarrowing: a narrowing closes the turn's open
// CONNECT tunnels that the new snapshot denies, but a plain HTTP request in
// flight is never tracked (proxy.go, serve → forward: only connect calls
// track), so a long streaming response (or a slow chunked upload) to the
// now-denied origin keeps flowing for as long as the command likes. The
// agent opens a plain http:// stream early (a command channel in, or an
// exfiltration channel out) and it survives the person's narrowing.
// Wanted: the stream is cut when the narrowing is judged. Control: a
// CONNECT tunnel to the same origin, opened alongside, is closed.
func TestAttackPlainHTTPOutlivesNarrowing(t *testing.T) {
	more := make(chan struct{}, 1)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	stream := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, pad("first"))
		w.(http.Flusher).Flush()
		select {
		case <-more:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, pad("second"))
		w.(http.Flusher).Flush()
	})}
	go stream.Serve(ln)
	t.Cleanup(func() { close(more); stream.Close() })
	originAddr := ln.Addr().String()

	echo := echoServer(t)
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}}
	j.set("t", np)
	p := NewProxy(j, &mapResolver{})
	p.Recheck = 20 * time.Millisecond
	addr := startProxy(t, p)

	// The plain HTTP stream, first line read.
	c := proxyClient(p.ProxyURL(addr, "t"))
	c.Timeout = 0
	resp, err := c.Get("http://" + originAddr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := bufio.NewReader(resp.Body)
	if line, err := body.ReadString('\n'); err != nil || line != pad("first") {
		t.Fatalf("stream before the narrowing: %q %v", line, err)
	}
	// The control tunnel.
	conn, br, st := dialConnect(t, addr, "t", p.Credential("t"), echo)
	if !strings.HasPrefix(st, "200") {
		t.Fatalf("CONNECT: %s", st)
	}

	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"example.org"}}) // denies 127.0.0.1
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadString('\n'); err == nil {
		t.Fatal("control: the CONNECT tunnel was not closed by the narrowing")
	}
	// The narrowing has been judged (the tunnel is closed); the origin now
	// sends more on the plain HTTP stream.
	more <- struct{}{}
	type r struct {
		line string
		err  error
	}
	got := make(chan r, 1)
	go func() { l, err := body.ReadString('\n'); got <- r{l, err} }()
	select {
	case g := <-got:
		if g.err == nil {
			t.Errorf("the plain HTTP stream to the denied origin still delivers %.20q… after the narrowing closed the tunnel", g.line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream neither delivered nor closed")
	}
}

// pad makes a line longer than the proxy's response buffer, so that it
// reaches the client without a flush of the proxy's own.
func pad(s string) string { return s + strings.Repeat(".", 16<<10) + "\n" }

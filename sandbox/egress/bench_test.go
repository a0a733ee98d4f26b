package egress

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"turnstile/domain"
)

// benchProxy is a proxy for one turn allowed to reach 127.0.0.1.
func benchProxy(b *testing.B) (*Proxy, string) {
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}})
	p := NewProxy(j, &mapResolver{})
	p.FlushEvery = time.Hour
	srv := httptest.NewServer(p.Handler())
	b.Cleanup(srv.Close)
	return p, srv.Listener.Addr().String()
}

func benchEcho(b *testing.B) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// BenchmarkConnectDirect: connect to a loopback echo server, one byte
// there and back, close.
func BenchmarkConnectDirect(b *testing.B) {
	echo := benchEcho(b)
	buf := make([]byte, 1)
	for b.Loop() {
		c, err := net.Dial("tcp", echo)
		if err != nil {
			b.Fatal(err)
		}
		c.Write(buf)
		if _, err := io.ReadFull(c, buf); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkConnectProxy: the same through a CONNECT tunnel of the proxy
// (credential check, snapshot, judged origin — reused after the first —,
// connect-time address check, dial).
func BenchmarkConnectProxy(b *testing.B) {
	echo := benchEcho(b)
	p, addr := benchProxy(b)
	req := "CONNECT " + echo + " HTTP/1.1\r\nHost: " + echo + "\r\nProxy-Authorization: Basic " +
		basic("t", p.Credential("t")) + "\r\n\r\n"
	want := "HTTP/1.1 200 Connection established\r\n\r\n"
	resp := make([]byte, len(want))
	buf := make([]byte, 1)
	for b.Loop() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		io.WriteString(c, req)
		if _, err := io.ReadFull(c, resp); err != nil || string(resp) != want {
			b.Fatalf("%q %v", resp, err)
		}
		c.Write(buf)
		if _, err := io.ReadFull(c, buf); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

const downloadSize = 100 << 20

func bigOrigin(b *testing.B) string {
	chunk := make([]byte, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(downloadSize))
		for range downloadSize / len(chunk) {
			w.Write(chunk)
		}
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func download(b *testing.B, c *http.Client, u string) {
	resp, err := c.Get(u)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != downloadSize {
		b.Fatalf("%d bytes, %v", n, err)
	}
}

// BenchmarkDownload100MBDirect: a 100 MB GET from a loopback server.
func BenchmarkDownload100MBDirect(b *testing.B) {
	u := bigOrigin(b)
	c := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	b.SetBytes(downloadSize)
	for b.Loop() {
		download(b, c, u)
	}
}

// BenchmarkDownload100MBProxy: the same GET through the proxy (plain
// HTTP forwarding).
func BenchmarkDownload100MBProxy(b *testing.B) {
	u := bigOrigin(b)
	p, addr := benchProxy(b)
	c := proxyClient(p.ProxyURL(addr, "t"))
	c.Timeout = 0
	b.SetBytes(downloadSize)
	for b.Loop() {
		download(b, c, u)
	}
}

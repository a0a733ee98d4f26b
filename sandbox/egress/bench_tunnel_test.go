package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkDownload100MBTunnel: the same GET inside a CONNECT tunnel
// through the proxy (the bytes copied both ways as a tunnel's are).
func BenchmarkDownload100MBTunnel(b *testing.B) {
	u := bigOrigin(b)
	p, addr := benchProxy(b)
	target := strings.TrimPrefix(u, "http://")
	b.SetBytes(downloadSize)
	for b.Loop() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}}
		req.SetBasicAuth("t", p.Credential("t"))
		req.Header.Set("Proxy-Authorization", req.Header.Get("Authorization"))
		req.Header.Del("Authorization")
		if err := req.Write(c); err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReaderSize(c, 64<<10)
		if resp, err := http.ReadResponse(br, req); err != nil || resp.StatusCode != 200 {
			b.Fatalf("CONNECT: %v %v", resp, err)
		}
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+target+"\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil || n != downloadSize {
			b.Fatalf("%d bytes, %v", n, err)
		}
		c.Close()
	}
}

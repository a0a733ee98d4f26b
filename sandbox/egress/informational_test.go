package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"

	"turnstile/domain"
)

// rawOrigin answers every connection's request with answer, as bytes.
func rawOrigin(t *testing.T, answer string) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					io.WriteString(c, answer)
				}
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestInformationalAnswersPassedOver: an origin that answers 100 Continue
// (or 103 Early Hints) before its answer has that answer reach the client
// through the proxy, not an empty 200; one that switches protocols
// unasked, or answers 1xx without end, is a 502.
func TestInformationalAnswersPassedOver(t *testing.T) {
	res := &mapResolver{m: map[string][]netip.Addr{}}
	for _, n := range []string{"continue", "hints", "switch", "endless"} {
		res.m[n+".example.test"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	c := proxyClient(p.ProxyURL(startProxy(t, p), "t"))
	final := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
	endless := ""
	for range maxInformational + 1 {
		endless += "HTTP/1.1 100 Continue\r\n\r\n"
	}
	for _, tc := range []struct {
		name, answer string
		code         int
		body         string
	}{
		{"continue", "HTTP/1.1 100 Continue\r\n\r\n" + final, 200, "hello"},
		{"hints", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n" + final, 200, "hello"},
		{"switch", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n", 502, ""},
		{"endless", endless + final, 502, ""},
	} {
		port := rawOrigin(t, tc.answer)
		code, _, body := get(t, c, fmt.Sprintf("http://%s.example.test:%d/", tc.name, port))
		if code != tc.code || (tc.body != "" && body != tc.body) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, code, body, tc.code, tc.body)
		}
	}
}

package egress

import (
	"bufio"
	"strings"
	"testing"
)

// TestPlainHTTPInTunnel: the first bytes of a tunnel that are an HTTP
// request line (after empty lines, any method token, HTTP/2's preface)
// are told from other protocols a client speaks first (SSH's banner,
// SMTP's EHLO, a line that only looks like a request's start).
func TestPlainHTTPInTunnel(t *testing.T) {
	for in, want := range map[string]bool{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n":                    true,
		"\r\n\r\nPOST /a HTTP/1.0\n":                           true,
		"get http://x/ HTTP/1.1\r\n":                           true,
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n":                     true,
		"M-SEARCH * HTTP/1.1\r\n":                              true,
		"SSH-2.0-OpenSSH_9.6\r\n":                              false,
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\nGET / HTTP/1.1\r\n": true, // a PROXY header before a request
		"\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c":               true, // PROXY v2
		"EHLO mail.example\r\n":                                false,
		"HELO a HTTPS\r\n":                                     false,
		"\x00\x01binary":                                       false,
		"GET":                                                  false, // the client closed before the line ended
		"GET /" + strings.Repeat("a", 20000):                   true,  // longer than the buffer, begun like a request
		strings.Repeat("x", 100000) + "\n":                     true,  // a token filling the buffer: a method, for all it tells
		strings.Repeat("@", 100000) + "\n":                     false, // no token at all
	} {
		br := bufio.NewReaderSize(strings.NewReader(in), tunnelPeek)
		if got := plainHTTP(br); got != want {
			t.Errorf("plainHTTP(%.30q) = %v, want %v", in, got, want)
		}
	}
}

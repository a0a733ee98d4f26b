package egress

import (
	"strings"
	"testing"
)

// apacheUnsafeRequestLine reads a request line as Apache httpd 2.4 does
// under "HttpProtocolOptions Unsafe" (server/protocol.c
// ap_parse_request_line, strict == 0), with the default Allow0.9 and
// LenientMethods: the method is scanned by ap_scan_vchar_obstext (any
// visible byte, not only a token's), ended by a space; the URI likewise;
// then either nothing (HTTP/0.9: "else if (strict && (r->method_number
// != M_GET || r->header_only)) deferred_error = rrl_badmethod09" — any
// method when not strict; the virtual host is the absolute URI's) or a
// version "HTTP/d.d", its letters in any case.
func apacheUnsafeRequestLine(line string) (uri string, http09, ok bool) {
	line = strings.TrimRight(line, "\r\n")
	vchar := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] <= ' ' || s[i] == 0x7f {
				return false
			}
		}
		return s != ""
	}
	f := strings.Split(line, " ")
	switch {
	case len(f) == 2 && vchar(f[0]) && vchar(f[1]):
		return f[1], true, true
	case len(f) == 3 && vchar(f[0]) && vchar(f[1]) && len(f[2]) == 8 && strings.EqualFold(f[2][:5], "HTTP/") &&
		f[2][5] >= '1' && f[2][5] <= '9' && f[2][6] == '.' && f[2][7] >= '0' && f[2][7] <= '9':
		return f[1], false, true
	}
	return "", false, false
}

// TestAttack72ApacheUnsafeRequestLineFronts (seventy-second review, low:
// Host fronting at an ingress with a non-default, documented setting):
// requestLine (sandbox/egress/tunnelhttp.go) takes a tunnel's first line
// for a request only when it begins with an RFC 9110 token (isTokenByte)
// and a blank, and, after the sixty-fifth review, takes one field after a
// method for HTTP/0.9 only when the method is GET ("memcached's get
// user/42"). Apache httpd under "HttpProtocolOptions Unsafe" — the
// setting its documentation gives for legacy clients — reads more
// (ap_parse_request_line with strict == 0):
//
//   - the method is any run of visible bytes (ap_scan_vchar_obstext, not
//     ap_scan_http_token): "G(ET / HTTP/1.1" is a request line with an
//     unregistered method, passed (LenientMethods) to the site's handler
//     (a CGI or PHP-FPM application sees it) on the Host's virtual host;
//   - HTTP/0.9 takes any method (rrl_badmethod09 is set only when
//     strict): "POST http://other.test/" is served by other.test's
//     virtual host, the absolute URI's host.
//
// Both are carried unread through a tunnel to ok.example.test and reach
// other.test.
//
// Fix: in requestLine, take a method as any run of visible bytes (0x21 to
// 0x7e and obs-text) ended by a blank, not only a token; and take "method
// absolute-URI" (one field beginning with a scheme and "//") as HTTP/0.9
// whatever the method, keeping memcached's "get user/42" (no "://") out.
//
// Control: the same requests with GET and a space are refused; a tunnel
// carrying another protocol reaches the ingress.
func TestAttack72ApacheUnsafeRequestLineFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, apacheUnsafeRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	for _, first := range []string{
		"GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"GET http://other.test/\r\n\r\n", // the empty line ends upgradeRequest's wait for a header block
	} {
		if got := through(first); got != "" {
			t.Fatalf("control: %q was carried: %q", first, got)
		}
	}
	// Attack.
	for _, first := range []string{
		"G(ET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"POST http://other.test/\r\n",
	} {
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("%q in a tunnel to %s was served as other.test: %q", strings.SplitN(first, "\r\n", 2)[0], target, got)
		}
	}
}

package egress

import (
	"strings"
	"testing"
)

// nginxRequestLine reads a request line as nginx's parser does
// (src/http/ngx_http_parse.c ngx_http_parse_request_line), for a
// vhostIngress stand-in for a shared ingress: a method, one or more
// spaces, a URI, and then either the end of the line (an HTTP/0.9 simple
// request: no headers, the body alone is answered, the virtual server
// chosen by an absolute URI's host) or one or more spaces,
// "HTTP/major.minor", and any number of spaces before the CRLF (state
// sw_spaces_after_digit).
func nginxRequestLine(line string) (uri string, http09, ok bool) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	method, rest, ok := strings.Cut(line, " ")
	if !ok || method == "" {
		return "", false, false
	}
	rest = strings.TrimLeft(rest, " ")
	uri, version, _ := strings.Cut(rest, " ")
	version = strings.TrimRight(strings.TrimLeft(version, " "), " ")
	if version == "" {
		return uri, true, true // HTTP/0.9: no headers, the body alone
	}
	return uri, false, strings.HasPrefix(version, "HTTP/")
}

// TestAttack59LenientRequestLineFrontsAnotherHost (fifty-ninth review,
// medium): the fifty-sixth and fifty-seventh reviews' fix closes a
// CONNECT tunnel whose first bytes are a plain HTTP request line, so that a
// shared ingress at the allowed name's address is not asked, in clear, for
// another Host. requestLine (tunnelhttp.go) takes a line for a request only
// when, after a method and a space, its last space-separated field begins
// "HTTP/". nginx — the commonest shared ingress — accepts two request
// lines that are not of that shape (ngx_http_parse_request_line):
//
//   - "GET / HTTP/1.1 \r\n": spaces after the version are skipped
//     (state sw_spaces_after_digit). The line's last field is "" after
//     its last space, so requestLine answers "not a request" and the
//     tunnel is carried unread: a full HTTP/1.1 request with
//     Host: other.test, and every request after it on the connection.
//   - "GET http://other.test/\r\n": an HTTP/0.9 simple request, whose
//     virtual server nginx picks by the absolute URI's host; its last
//     field "http://other.test/" is not "HTTP/…" (the compare is case
//     sensitive and the version absent), carried unread.
//
// Either way the agent holding the sandbox's shell reads (and, in the
// path and query, writes to) a host its policy does not allow, through a
// tunnel to one it does: the fronting the fix closes, one trailing space
// away. The proxy's check asks whether a line is an HTTP request as Go's
// server reads one; an ingress reads more.
//
// Control: a tunnel carrying another protocol reaches the ingress, and
// the plain "GET / HTTP/1.1" with Host other.test is refused (the fix).
func TestAttack59LenientRequestLineFrontsAnotherHost(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nginxRequestLine))
	// through opens a tunnel to the allowed name, sends first, and returns
	// all the tunnel carried back until it was closed ("" when the proxy
	// refused the tunnel or closed it).
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	// Controls.
	if got := through("GET / HTTP/1.1\r\nHost: ok.example.test\r\n\r\n"); got != "" {
		t.Fatalf("control: the fifty-sixth review's fix does not hold for a plain request: %q", got)
	}
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: the fifty-sixth review's fix does not hold: %q", got)
	}

	if got := through("GET / HTTP/1.1 \r\nHost: other.test\r\nConnection: close\r\n\r\n"); strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to ok.example.test whose request line ends in a space after HTTP/1.1 was served Host other.test: %q", got)
	}
	if got := through("GET http://other.test/\r\n"); strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to ok.example.test carrying an HTTP/0.9 request for http://other.test/ was served other.test: %q", got)
	}
}

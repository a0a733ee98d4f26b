package egress

import (
	"strings"
	"testing"
)

// nginxLegacyRequestLine reads a request line as nginx before 1.21.1 does
// (src/http/ngx_http_parse.c, ngx_http_parse_request_line): its "usual"
// table's first word is 0xffffdbfe, every byte below 0x20 but NUL, LF
// and CR a usual URI byte, so sw_after_slash_in_uri and sw_check_uri
// take \x01..\x1f (and DEL) inside the URI without a complaint; only a
// space ends the URI. 1.21.1 set that word to 0 ("now nginx always
// returns an error if spaces or control characters are used in the
// request line"). Otherwise as nginxRequestLine.
func nginxLegacyRequestLine(line string) (uri string, http09, ok bool) {
	if strings.ContainsRune(strings.TrimRight(line, "\r\n"), 0) {
		return "", false, false
	}
	return nginxRequestLine(line)
}

// TestAttack72ControlByteInURIFronts (seventy-second review, medium): the
// sixty-fifth review's fix makes requestLine (sandbox/egress/tunnelhttp.go)
// answer "no request line" as soon as any control byte but HT, CR and LF
// comes before the line's end ("no request line holds one"), so that
// git://'s pkt-line does not stall. But a request line with a control byte
// in its URI is still a request line to the servers a shared ingress runs:
//
//   - nginx before 1.21.1 (Ubuntu 20.04's and Debian 11's 1.18, still
//     common): the "usual" table of ngx_http_parse.c marks 0x01..0x1f
//     (not NUL, CR, LF) as plain URI bytes, so "GET /\x01 HTTP/1.1" is
//     parsed and served, the virtual server picked by the Host header;
//   - Node's llhttp in its default (loose) build: URL_CHAR adds '\t' and
//     '\f' to the strict URL characters, so "GET /\f HTTP/1.1" is parsed.
//
// So a tunnel to the allowed ok.example.test that begins
// "GET /\x01 HTTP/1.1\r\nHost: other.test" is carried unread, and the
// ingress serves other.test: the Host fronting of the fifty-sixth review
// again, one byte in the path away. (The fix also makes isBlank's VT and
// FF after the method dead: the control-byte test finds them first.)
//
// Fix: judge control bytes only where a request line cannot hold them
// for any ingress — a NUL (which git's pkt-line carries and nginx, Go and
// HAProxy refuse) — or take a line whose method and blank are followed,
// before the LF, by a version-shaped last field as a request whatever
// control bytes (but NUL) its URI holds; check the control bytes after
// the fields are judged, not before.
//
// Control: the same request without the control byte is refused, and a
// tunnel carrying another protocol reaches the ingress.
func TestAttack72ControlByteInURIFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nginxLegacyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: a plain request for other.test was carried: %q", got)
	}
	// Attack.
	for _, first := range []string{
		"GET /\x01 HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"GET /a\x1fb HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"GET /\f HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
	} {
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a request line with a control byte in its URI (%q) in a tunnel to %s was served as other.test: %q", strings.SplitN(first, "\r\n", 2)[0], target, got)
		}
	}
}

package egress

import (
	"strings"
	"testing"
)

// nettyTrimmedRequestLine reads a request line as Netty 4.1's
// HttpObjectDecoder does with AppendableCharSequence (4.1.5x on):
// control bytes and whitespace before it skipped (SKIP_CONTROL_CHARS),
// splitInitialLine's method and URI ended by isSPLenient (SP, HT, VT, FF,
// CR; other whitespace between them "Invalid separator"), and the version
// running from there to findEndOfString, which trims every
// Character.isWhitespace from the line's end: HT, LF, VT, FF, CR, the
// information separators 0x1c-0x1f and SP.
func nettyTrimmedRequestLine(line string) (uri string, http09, ok bool) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	for line != "" && (line[0] <= 0x20 || line[0] >= 0x7f && line[0] <= 0x9f) {
		line = line[1:]
	}
	line = strings.TrimRightFunc(line, func(c rune) bool { return c >= 0x09 && c <= 0x0d || c >= 0x1c && c <= 0x20 })
	spLenient := func(c rune) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' }
	parts := strings.FieldsFunc(line, spLenient)
	if len(parts) != 3 || !versionShaped([]byte(parts[2])) {
		return "", false, false
	}
	return parts[1], false, true
}

// TestAttack95_NettyTrailingSeparatorFronts (ninety-fifth review, medium:
// Host fronting in clear through a tunnel to an allowed name). requestLine
// (sandbox/egress/tunnelhttp.go) splits the line after the method with
// bytes.Fields and wants its last field versionShaped: "HTTP/1.1\x1f" is
// not (its minor "1\x1f" is no digits), so the line is "no request",
// plainHTTP returns false, and the tunnel is carried unread. Netty's
// codec (Reactor Netty, Spring Cloud Gateway's Host predicate, Zuul 2,
// Vert.x, Armeria: the JVM ingresses the eighty-eighth review names) ends
// the version at findEndOfString, which trims Character.isWhitespace from
// the line's end, 0x1c-0x1f among it: it reads "GET / HTTP/1.1" and
// routes on the Host that follows. So a tunnel to ok.example.test that
// begins
//
//	"GET / HTTP/1.1\x1f\r\nHost: other.test\r\n\r\n"
//
// is served as other.test. The same bytes pass the check after a refused
// WebSocket upgrade (the second plainHTTP in proxy.go's connect).
//
// Fix: in requestLine, trim the blanks a server trims from the line's
// end, 0x1c-0x1f with them (or judge the version as a prefix: a
// versionShaped head followed by nothing but bytes <= ' '), before taking
// the last field.
//
// Control: the same request without the separator is refused, and a
// tunnel carrying another protocol reaches the ingress.
func TestAttack95_NettyTrailingSeparatorFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nettyTrimmedRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: a plain request for other.test was carried: %q", got)
	}
	if uri, _, ok := nettyTrimmedRequestLine("GET /x HTTP/1.1\x1f\r\n"); !ok || uri != "/x" {
		t.Fatalf("control: the stand-in does not trim a trailing separator: %q %v", uri, ok)
	}
	for _, sep := range []string{"\x1c", "\x1d", "\x1e", "\x1f", " \x1f"} {
		first := "GET / HTTP/1.1" + sep + "\r\nHost: other.test\r\nConnection: close\r\n\r\n"
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a tunnel to %s whose request line ends %q was carried and served as other.test: %q", target, sep, got)
		}
	}
}

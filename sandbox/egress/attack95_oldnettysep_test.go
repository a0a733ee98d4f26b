package egress

import (
	"strings"
	"testing"
)

// oldNettyRequestLine reads a request line as Netty 4.1 did before its
// codec took isSPLenient (4.1.4x and earlier, still inside JVM gateways
// pinned to old Reactor Netty / Zuul 2 / Vert.x releases):
// splitInitialLine separated the method, the URI and the version with
// findWhitespace / findNonWhitespace, which are Character.isWhitespace:
// HT, LF, VT, FF, CR, the separators 0x1c-0x1f, and SP. Control bytes and
// whitespace before the line are skipped as today's Netty does.
func oldNettyRequestLine(line string) (uri string, http09, ok bool) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	for line != "" && (line[0] <= 0x20 || line[0] >= 0x7f && line[0] <= 0x9f) {
		line = line[1:]
	}
	javaWhitespace := func(c rune) bool { return c >= 0x09 && c <= 0x0d || c >= 0x1c && c <= 0x20 }
	parts := strings.FieldsFunc(line, javaWhitespace)
	if len(parts) != 3 || !versionShaped([]byte(parts[2])) {
		return "", false, false
	}
	return parts[1], false, true
}

// TestAttack95_UnitSeparatorFronts (ninety-fifth review, low: Host
// fronting through a tunnel to an allowed name, against an old Netty).
// requestLine (sandbox/egress/tunnelhttp.go) takes a method only when a
// blank of isBlank (SP, HT, VT, FF, CR) follows it; any other byte after
// the method is "not a method and a blank", and plainHTTP returns false:
// the tunnel is carried unread. Netty's HTTP codec before isSPLenient split
// the request line on Character.isWhitespace, which also holds the four
// information separators 0x1c-0x1f. So a tunnel to the allowed
// ok.example.test that begins
//
//	"GET\x1f/\x1fHTTP/1.1\r\nHost: other.test\r\n\r\n"
//
// is carried, and such an ingress serves other.test.
//
// Fix: take 0x1c-0x1f as blanks after the method too (isBlank), as the
// eighty-eighth review took CR, VT and FF.
//
// Control: the same request with spaces is refused, and a tunnel carrying
// another protocol reaches the ingress.
func TestAttack95_UnitSeparatorFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, oldNettyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: a plain request for other.test was carried: %q", got)
	}
	if uri, _, ok := oldNettyRequestLine("GET\x1c/x\x1dHTTP/1.1\r\n"); !ok || uri != "/x" {
		t.Fatalf("control: the stand-in does not split on 0x1c-0x1f: %q %v", uri, ok)
	}
	for _, sep := range []string{"\x1c", "\x1d", "\x1e", "\x1f"} {
		first := "GET" + sep + "/" + sep + "HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a tunnel to %s whose request line is split by %q was carried and served as other.test: %q", target, sep, got)
		}
	}
}

package egress

import (
	"strings"
	"testing"
)

// nettyRequestLine reads a request line as Netty's HttpObjectDecoder
// (io.netty.handler.codec.http, the HTTP/1 server codec of Reactor
// Netty, Spring Cloud Gateway, Zuul 2, Vert.x, Armeria) does, by default:
//
//   - in its SKIP_CONTROL_CHARS state, LineParser.process drops every byte
//     that is Character.isISOControl (0x00-0x1f, 0x7f-0x9f) or
//     Character.isWhitespace (HT, LF, VT, FF, CR, 0x1c-0x1f, SP) before
//     the initial line, not only the empty lines RFC 9112 §2.2 names;
//   - the line ends at LF, a CR before it dropped;
//   - splitInitialLine separates the method, the URI and the version by
//     findSPLenient / findNonSPLenient: SP, HT, VT, FF and CR (isSPLenient),
//     any other whitespace an error;
//   - fewer than three parts is no request (the line is ignored), and the
//     version is HttpVersion.valueOf's "(\S+)/(\d+)\.(\d+)".
func nettyRequestLine(line string) (uri string, http09, ok bool) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	isCtlOrWS := func(c byte) bool {
		return c <= 0x20 || (c >= 0x7f && c <= 0x9f)
	}
	for line != "" && isCtlOrWS(line[0]) {
		line = line[1:]
	}
	spLenient := func(c rune) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' }
	parts := strings.FieldsFunc(line, spLenient)
	if len(parts) != 3 {
		return "", false, false
	}
	for _, p := range parts {
		if strings.ContainsAny(p, "\n\x1c\x1d\x1e\x1f") {
			return "", false, false // "Invalid separator"
		}
	}
	if !versionShaped([]byte(parts[2])) {
		return "", false, false
	}
	return parts[1], false, true
}

// TestAttack88_LeadingControlFronts (eighty-eighth review, medium: Host
// fronting through a tunnel to an allowed name). The fifty-sixth review
// closes a tunnel whose first bytes are a plain HTTP request, since a
// shared ingress serving several names picks the site by its Host header
// (curl -p --connect-to other:80:allowed:80 http://other/). requestLine
// (sandbox/egress/tunnelhttp.go) skips only CR and LF before the method,
// and takes only SP, HT, VT and FF as the blank after it. Netty's HTTP
// codec, the server side of the JVM gateways that route on Host (Spring
// Cloud Gateway's Host predicate, Zuul 2, Vert.x and Armeria proxies),
// skips every control byte and whitespace before the request line, and
// takes CR as a separator inside it. So a command whose tunnel to the
// allowed ok.example.test begins
//
//	" GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"   (a leading space)
//	"\x01GET / HTTP/1.1\r\nHost: other.test\r\n\r\n" (a leading control byte)
//	"GET\r/ HTTP/1.1\r\nHost: other.test\r\n\r\n"   (CR after the method)
//
// gets "no request" from requestLine, the bytes are carried unread, and
// the ingress serves other.test, a site the allow-list never named. The
// same lead bytes pass the check plainHTTP makes after an accepted
// WebSocket handshake (a second request on a connection an ingress kept).
//
// Fix: read the lead bytes as the most lenient server does: skip any run
// of control bytes (but a NUL, which marks another protocol) and
// whitespace before the method, and take any of SP, HT, VT, FF and CR
// as the blank after it (then judge the rest of the line as now).
//
// Control: the same request without the lead bytes is refused, and a
// tunnel carrying another protocol reaches the ingress.
func TestAttack88_LeadingControlFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nettyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: a plain request for other.test was carried: %q", got)
	}
	// The stand-in serves the allowed name as Netty would (the lead bytes
	// are what it skips), so that a refusal below is the proxy's.
	if uri, _, ok := nettyRequestLine(" GET /x HTTP/1.1\r\n"); !ok || uri != "/x" {
		t.Fatalf("control: the Netty stand-in does not read a request line after a space: %q %v", uri, ok)
	}
	// Attack.
	for _, first := range []string{
		" GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"\x01GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"\x7fGET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"GET\r/ HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
	} {
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a tunnel to %s that begins %q was carried and served as other.test: %q", target, strings.SplitN(first, "\r\n", 2)[0], got)
		}
	}
}

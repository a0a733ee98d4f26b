package egress

import (
	"strings"
	"testing"
)

// TestAttack107_NULAfterSymbolMethodFronts (hundred-and-seventh review,
// medium: Host fronting through a tunnel to an allowed name, a Netty
// ingress). requestLine (tunnelhttp.go) takes a NUL before the line's end
// after a method that is no word of letters for another protocol's first
// message (git://'s "0033git-upload-pack /r\0host=…\0", an LDAP bind),
// and plainHTTP then carries the whole tunnel unread. That exemption was
// made (the sixty-fifth and ninetieth reviews) because those clients send
// no '\n' and wait: the proxy stalled them waiting for a line end. Since
// the hundred-and-fifth review's carriable, a first line whose method is
// no word of letters is carried as it comes and only its line end held
// back, so such a client no longer stalls, yet the exemption still lets a
// line that IS a request through whole. Netty's HttpObjectDecoder (the
// JVM gateways that route on Host) takes any method without control
// bytes or blanks (HttpMethod's constructor: "!!!" is one; a token too,
// so Go's and Netty 4.2's validation agree) and keeps a NUL in the URI
// (the ninetieth review), then serves the Host the request names:
//
//	CONNECT ok.example.test:80, then "!!! /\x00 HTTP/1.1\r\nHost: other.test\r\n\r\n"
//
// is carried and served as other.test, which the allow-list never named.
// (The same line with GET, a word of letters, is refused: the NUL stays
// in a GET's line.)
//
// Controls: the GET form is refused; another protocol (SSH's banner) and
// git://'s pkt-line with its NUL reach the ingress; "!!! / HTTP/1.1" with
// no NUL is refused.
func TestAttack107_NULAfterSymbolMethodFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nettyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("0033git-upload-pack /r\x00host=ok.example.test\x00\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: git://'s pkt-line did not reach the address: %q", got)
	}
	for _, first := range []string{
		"GET /\x00 HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"!!! / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
	} {
		if got := through(first); got != "" {
			t.Fatalf("control: a tunnel beginning %q was carried: %q", first[:16], got)
		}
	}
	if uri, _, ok := nettyRequestLine("!!! /\x00 HTTP/1.1\r\n"); !ok || uri != "/\x00" {
		t.Fatalf("control: the Netty stand-in does not read the line: %q %v", uri, ok)
	}

	for _, first := range []string{
		"!!! /\x00 HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"1 /?\x00 HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"*GET /a\x00b HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
	} {
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a tunnel to %s that begins %q (a method of symbols or digits, a NUL in the target) was carried "+
				"and served as other.test: %q", target, first[:min(len(first), 20)], got)
		}
	}
}

// TestAttack107_NULHelloHidesRequest is the same exemption inside a
// ClientHello (the hundred-and-fifth review's helloReadsAsRequest judges
// the hello's bytes with requestLine): a hello naming the tunnel's host,
// its header bytes control bytes, whose random and session id hold
// "!! /\x00 HTTP/1.1\r\nHost: other.test …" is carried, and a Netty
// ingress at the address serves other.test. Control: the same hello with
// "GET" is closed (the hundred-and-fifth review's fix).
func TestAttack107_NULHelloHidesRequest(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nettyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))
	tail := " " + "\r\nConnection: close\r\nX: abcd\r\n\r\n"

	if got := through(string(helloHiding(t, "ok.example.test", "GET /\x00 HTTP/1.1\nHost: other.test"+tail))); got != "" {
		t.Fatalf("control: a hello hiding a GET with a NUL in its target was carried: %q", got)
	}
	plain := helloHiding(t, "ok.example.test", strings.Repeat("r", 30)+"\r\n"+" "+strings.Repeat("s", 32))
	if got := through(string(plain)); !strings.Contains(got, "400") {
		t.Fatalf("control: a ClientHello naming the tunnel's host did not reach the address: %q", got)
	}
	hello := helloHiding(t, "ok.example.test", "!! /\x00 HTTP/1.1\r\nHost: other.test"+tail)
	if got := through(string(hello)); strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to %s whose ClientHello names it but hides \"!! /\\x00 HTTP/1.1\\r\\nHost: other.test\" in its random and session id was carried and served as other.test: %q", target, got)
	}
}

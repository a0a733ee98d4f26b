package egress

import (
	"bufio"
	"net"
	"strings"
	"testing"
)

// TestAttack57LongMethodFrontsAnotherHost (fifty-seventh review, medium):
// the fifty-sixth review's fix closes a CONNECT tunnel whose first bytes
// are a plain HTTP request line (tunnelhttp.go plainHTTP/requestLine), so
// that a shared ingress at the allowed name's address is not asked, in
// clear, for another Host. requestLine gives up on a method token longer
// than maxMethod (32 bytes: "no method is that long") and answers "not a
// request" — the tunnel is then carried unread. But a server takes a method
// of any length: Go's net/http (request.go readRequest → parseRequestLine
// and validMethod, which checks only that it is a token) serves
// `AAAA…(40 bytes) / HTTP/1.1` to the handler, and a handler that does not
// look at the method (most do not: a file server, a mux without method
// patterns, a CDN's cache) answers the Host it names. Worse, only the
// tunnel's first bytes are ever looked at (proxy.go connect: plainHTTP is
// asked once, then the splice carries the rest): the long-method request
// keeps the connection alive, and every later request on it — an ordinary
// `GET / HTTP/1.1` with Host: other.test — goes to the ingress unread.
// The fronting the fifty-sixth review closed is open again with one
// 33-byte method.
//
// One loopback Go server stands for the shared ingress, answering
// "allowed" for Host ok.example.test and "SECRET of other.test" for Host
// other.test. Control: a tunnel carrying another protocol reaches it, and
// the plain GET with Host other.test in a tunnel is refused (the fix).
// Attack: a first request whose method is 40 token bytes, Host
// other.test, must not be served; then a second, ordinary GET for
// other.test after a long-method first request must not be either.
func TestAttack57LongMethodFrontsAnotherHost(t *testing.T) {
	target := ingressTarget("ok.example.test", httpIngress(t, vhostHandler, nil))
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))

	// through opens a tunnel to the allowed name, sends first, and returns
	// the bodies of the answers it gets ("" each when the tunnel was
	// refused or closed).
	through := func(first string, answers int) []string {
		out := make([]string, answers)
		inTunnel(t, addr, auth, target, first, func(_ net.Conn, br *bufio.Reader) {
			copy(out, answerBodies(br, answers))
		})
		return out
	}

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n", 1); got[0] == "" {
		t.Fatal("control: a tunnel carrying another protocol did not reach the ingress")
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", 1); got[0] != "" {
		t.Fatalf("control: the fifty-sixth review's fix does not hold: %q", got)
	}

	long := strings.Repeat("A", 40)
	if got := through(long+" / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", 1); got[0] != "" {
		t.Errorf("a tunnel to ok.example.test whose first request has a %d-byte method was served Host other.test: %q", len(long), got[0])
	}
	got := through(long+" / HTTP/1.1\r\nHost: ok.example.test\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", 2)
	if got[1] != "" {
		t.Errorf("after a long-method first request, an ordinary GET for other.test in the same tunnel was served: %q", got)
	}
}

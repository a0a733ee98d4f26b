package egress

import (
	"strings"
	"testing"
)

// TestAttack60VersionLettersUnread (sixtieth review, medium): requestLine
// (tunnelhttp.go) takes a tunnel's first line for a request only when its
// last field begins with the bytes "HTTP/". HAProxy before 3.0 (whose
// option is still named accept-invalid-http-request; 2.4 and 2.6 are the
// LTS releases Ubuntu 22.04 and Debian 12 ship; src/h1_htx.c
// h1_process_req_vsn) checks a request's version by its length and its
// fifth to eighth bytes only — "/", a digit, ".", a digit — so
// "GET / XTTP/1.1" (or "http/1.1", "HTTQ/1.1") is an HTTP/1.1 request to
// it, headers and all. A tunnel to ok.example.test that begins with such a
// line and Host: other.test is carried unread, and a shared HAProxy
// ingress at that address routes it to other.test: the fronting the
// fifty-sixth review closed, through a version requestLine does not know.
//
// Fix: take a line for a request when its last field has the shape of a
// version whatever its letters (four token bytes, "/", digit, ".",
// digit), case-insensitively at the least; or, safer, refuse any first
// line of a tunnel that is a token, a blank, and more, whatever follows
// (what no protocol but HTTP-like ones send first).
//
// Control: "HTTP/1.1" is refused (the fix in place), and a tunnel carrying
// another protocol reaches the ingress. Attack: the other letters must be
// refused too.
func TestAttack60VersionLettersUnread(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, haproxyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"); strings.Contains(got, "SECRET") {
		t.Fatalf("control: a request for other.test was carried: %q", got)
	}
	// Attack.
	for _, v := range []string{"XTTP/1.1", "http/1.1", "HTTQ/1.0"} {
		if got := through("GET / " + v + "\r\nHost: other.test\r\n\r\n"); strings.Contains(got, "SECRET") {
			t.Errorf("a request line versioned %q in a tunnel to %s reached the ingress as other.test: %q", v, target, got)
		}
	}
}

package egress

import (
	"strings"
	"testing"
)

// haproxyRequestLine reads a request line as HAProxy's parser does (src/h1.c
// h1_headers_to_hdr_list: states H1_MSG_RQMETH, H1_MSG_RQMETH_SP,
// H1_MSG_RQURI, H1_MSG_RQURI_SP), for a vhostIngress stand-in for a shared
// ingress that routes each virtual host (a `use_backend … if { hdr(host)
// … }` rule): the method is a token ended by HTTP_IS_SPHT — a space OR a
// horizontal tab — and so are the URI and the runs between the three
// fields; the version is checked by haproxyVersion.
func haproxyRequestLine(line string) (uri string, http09, ok bool) {
	f := strings.FieldsFunc(strings.TrimRight(line, "\r\n"), func(r rune) bool { return r == ' ' || r == '\t' })
	if len(f) != 3 || !haproxyVersion(f[2]) {
		return "", false, false
	}
	return f[1], false, true
}

// haproxyVersion is HAProxy 2.x's (before 3.0) check of a request's version
// (h1_process_req_vsn, without accept-invalid-http-request): eight bytes,
// a '/' fifth, a digit, a '.', a digit. The four letters before the '/'
// are not compared (later releases compare them with "HTTP/").
func haproxyVersion(v string) bool {
	return len(v) == 8 && v[4] == '/' && v[5] >= '0' && v[5] <= '9' && v[6] == '.' && v[7] >= '0' && v[7] <= '9'
}

// TestAttack60TabSeparatedRequestLineFronts (sixtieth review, medium):
// the fifty-sixth review closes a CONNECT tunnel whose first bytes are a
// plain HTTP request, so a shared ingress at the allowed name's address
// is not asked, in clear, for another Host. requestLine (tunnelhttp.go)
// takes the first bytes for a request only when a method token is
// followed by a SPACE (`b[j] != ' '` answers "not a method and a space",
// not a request, at once); the fifty-ninth review widened what follows the
// URI, not what follows the method. HAProxy — a shared ingress as common
// as nginx — ends the method, and the URI, at a space or a horizontal tab
// (HTTP_IS_SPHT in src/h1.c, in the default, non-lenient parser): a tunnel
// to ok.example.test that begins "GET\t/\tHTTP/1.1\r\nHost: other.test"
// is carried unread, and the ingress serves other.test.
//
// Fix: in requestLine, a method token followed by any blank (SP or HT,
// and for safety any byte a server may take for whitespace: VT, FF, CR
// alone) is a method and a separator; read the line's fields on those
// blanks (bytes.Fields already does, after the method).
//
// Control: the same request with spaces is refused (the tunnel closed
// before the ingress answers), and a tunnel carrying another protocol
// reaches the ingress. Attack: the tab-separated request must be refused.
func TestAttack60TabSeparatedRequestLineFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, haproxyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	// Controls.
	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"); strings.Contains(got, "SECRET") {
		t.Fatalf("control: a space-separated request for other.test was carried: %q", got)
	}
	// Attack.
	for _, first := range []string{
		"GET\t/\tHTTP/1.1\r\nHost: other.test\r\n\r\n",
		"GET\thttp://other.test/ HTTP/1.1\r\n\r\n",
	} {
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a tab-separated request line (%q) in a tunnel to %s reached the ingress as other.test: %q", strings.SplitN(first, "\r\n", 2)[0], target, got)
		}
	}
}

package egress

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
)

// sslv2HelloLengths is sslv2HelloFromClient with a session id of sid
// bytes and a challenge of challenge bytes.
func sslv2HelloLengths(sid, challenge int) []byte {
	specs := []byte{
		0x00, 0xc0, 0x2f, // ECDHE-RSA-AES128-GCM-SHA256
		0x00, 0x00, 0x9c, // AES128-GCM-SHA256
		0x00, 0x00, 0xff, // the renegotiation SCSV
	}
	body := []byte{0x01, 0x03, 0x03, 0, byte(len(specs)), 0, byte(sid), 0, byte(challenge)}
	body = append(body, specs...)
	for i := range sid + challenge {
		body = append(body, byte(i*7+1))
	}
	return append([]byte{0x80 | byte(len(body)>>8), byte(len(body))}, body...)
}

// TestAttack72SSLv2HelloOtherLengths (seventy-second review, low: TLS
// without a server name through a tunnel to a host name, past the
// sixty-fifth review's sslv2Hello): sslv2Hello (sandbox/egress/sni.go)
// says it reads the SSLv2-format header "as OpenSSL reads it", and takes a
// hello only with a session id of 0 or 16 bytes and a challenge of 16 to
// 32 (the SSLv2 specification's). OpenSSL's server does not check those:
// tls_process_client_hello (ssl/statem/statem_srvr.c, isv2) refuses only a
// session id longer than SSL_MAX_SSL_SESSION_ID_LENGTH (32), takes a
// challenge of any length (it keeps its last 32 bytes, or pads a short
// one with zeros, as the client random), and asks only that the lengths
// add up to the record's. A hello with a 32-byte session id, or an
// 8-byte challenge, is "not SSLv2" to sslv2Hello, not TLS to helloName,
// not HTTP: carried, and the server answers with a ServerHello: a TLS
// handshake that names no server, in a tunnel to a host name.
//
// Fix: in sslv2Hello accept what OpenSSL accepts — a session id of 0 to
// 32 bytes and a challenge of any length (at least 1) — with the record
// length their sum; a Thrift compact call (82 21 01 …) still fails the
// version and cipher-spec tests.
//
// Control: each hello sent straight to s_server is answered with a
// ServerHello; the 0/32 hello of attack60 is refused in the tunnel.
func TestAttack72SSLv2HelloOtherLengths(t *testing.T) {
	port := startSServer(t, "ok.example.test", writeSelfSignedRSA, func(_, _ string) []string { return []string{"-cipher", "DEFAULT@SECLEVEL=0"} })
	ps := strconv.Itoa(port)
	direct := func(hello []byte) bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+ps)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write(hello)
		return serverHelloBack(c)
	}
	if !direct(sslv2HelloLengths(0, 32)) {
		t.Skip("this openssl does not take an SSLv2-format ClientHello")
	}
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))
	target := "ok.example.test:" + ps
	tunneled := func(hello []byte) (answered bool) {
		inTunnel(t, addr, auth, target, string(hello), func(c net.Conn, _ *bufio.Reader) {
			answered = serverHelloBack(c)
		})
		return answered
	}
	// Control: the fix holds for the hello the sixtieth review sent.
	if tunneled(sslv2HelloLengths(0, 32)) {
		t.Fatal("control: the SSLv2-format hello of attack60 was carried")
	}
	var got []string
	for _, l := range [][2]int{{32, 32}, {0, 8}, {8, 16}} {
		h := sslv2HelloLengths(l[0], l[1])
		if !direct(h) {
			t.Logf("s_server did not take session id %d, challenge %d", l[0], l[1])
			continue
		}
		if tunneled(h) {
			got = append(got, fmt.Sprintf("session id %d, challenge %d", l[0], l[1]))
		}
	}
	if len(got) > 0 {
		t.Errorf("SSLv2-format ClientHellos (no server name) in a tunnel to %s were carried and answered with a ServerHello: %s", target, strings.Join(got, "; "))
	}
}

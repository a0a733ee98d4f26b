package egress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// helloHiding builds a TLS 1.2-format ClientHello record that names sni
// and carries request in its random (32 bytes) and legacy session id (its
// length byte, 0x20, then 32 bytes): a server that skips the control bytes
// before a request line (Netty) reads the record's and handshake's headers
// as such bytes and request as the first thing after them. A padding
// extension makes the record 260 bytes (0x01 0x04) and the handshake 256
// (0x00 0x01 0x00): every header byte before the random is then a control
// byte, and none is a line feed.
func helloHiding(t *testing.T, sni, request string) []byte {
	t.Helper()
	if len(request) != 32+1+32 || request[32] != ' ' {
		t.Fatalf("request must be 65 bytes with the session id's length (a space) at 32: %d", len(request))
	}
	var body []byte
	body = append(body, 0x03, 0x03)             // legacy_version
	body = append(body, request[:32]...)        // random
	body = append(body, 0x20)                   // legacy_session_id length: 32 (the space)
	body = append(body, request[33:]...)        // legacy_session_id
	body = append(body, 0x00, 0x02, 0xc0, 0x2f) // cipher_suites: TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
	body = append(body, 0x01, 0x00)             // compression: null
	name := []byte(sni)
	var sniExt []byte
	sniExt = binary.BigEndian.AppendUint16(sniExt, 0x0000) // server_name
	sniExt = binary.BigEndian.AppendUint16(sniExt, uint16(2+1+2+len(name)))
	sniExt = binary.BigEndian.AppendUint16(sniExt, uint16(1+2+len(name)))
	sniExt = append(sniExt, 0x00) // host_name
	sniExt = binary.BigEndian.AppendUint16(sniExt, uint16(len(name)))
	sniExt = append(sniExt, name...)
	const hsLen = 256
	fixed := len(body) + 2 + len(sniExt) // + extensions' length
	pad := hsLen - fixed - 4             // padding extension's data
	if pad < 0 {
		t.Fatalf("hello too long: %d", fixed)
	}
	var padExt []byte
	padExt = binary.BigEndian.AppendUint16(padExt, 0x0015) // padding
	padExt = binary.BigEndian.AppendUint16(padExt, uint16(pad))
	padExt = append(padExt, make([]byte, pad)...)
	exts := append(sniExt, padExt...)
	body = binary.BigEndian.AppendUint16(body, uint16(len(exts)))
	body = append(body, exts...)
	if len(body) != hsLen {
		t.Fatalf("handshake body %d bytes, want %d", len(body), hsLen)
	}
	hs := append([]byte{0x01, 0x00, 0x01, 0x00}, body...) // client_hello, length 256
	rec := append([]byte{0x16, 0x03, 0x01, 0x01, 0x04}, hs...)
	return rec
}

// TestAttack105_HelloHidesRequestFronts (hundred-and-fifth review, medium:
// Host fronting through a tunnel to an allowed name, the eighty-eighth
// review's ingress). A tunnel's first bytes are judged as a plain HTTP
// request (plainHTTP, requestLine: Netty's skipping of control bytes
// before the method included) only when they are not a TLS ClientHello:
// Proxy.connect calls plainHTTP only when helloName read no hello
// (len(hello) == 0). A hello that names the CONNECT host is carried as it
// is, and once the address's first answer is no HelloRetryRequest the
// rest of the tunnel is carried unread. But a ClientHello is bytes a
// plain-HTTP server reads too: its record header (0x16 0x03 0x01, a
// length), its handshake header (0x01, a length) and legacy_version (0x03
// 0x03) can all be control bytes, which Netty's HttpObjectDecoder skips
// (SKIP_CONTROL_CHARS) before the initial line, and the 32 bytes of
// random and 32 of legacy_session_id (its length byte 0x20 a space inside
// a header) are the client's to choose. So a command sends, after
// "CONNECT ok.example.test:80",
//
//	16 03 01 01 04 | 01 00 01 00 | 03 03 | "GET / HTTP/1.1\r\nHost: other.test" | 20 |
//	"\r\nConnection: close\r\nX: abcd\r\n\r\n" | suites, SNI ok.example.test, padding
//
// helloName reads a well-formed ClientHello naming ok.example.test and
// the proxy carries it; a Netty ingress on the allowed address (Spring
// Cloud Gateway, Zuul 2, Vert.x, Armeria: the eighty-eighth review's) skips
// the 11 header bytes, reads "GET / HTTP/1.1", "Host: other.test" and
// answers as other.test, a site the allow-list never named.
//
// Fix: judge a ClientHello's bytes as a plain request too, as a server
// that skips lead bytes reads them: in Proxy.connect, refuse a tunnel
// whose hello plainHTTP/requestLine (run on the hello's bytes, which a real
// hello's random never makes a request line, and whose length bytes rarely
// are all controls) takes for a request; or refuse a hello whose bytes
// up to the random are all lead bytes and whose random begins a request
// line.
//
// Control: the same request sent in clear after the same lead bytes is
// refused (the eighty-eighth fix), a genuine ClientHello naming the
// tunnel's host is carried to the address, and the crafted hello is one
// helloName reads as naming the tunnel's host (so the test is about the
// check that follows, not about a malformed hello).
func TestAttack105_HelloHidesRequestFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nettyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	request := "GET / HTTP/1.1\r\nHost: other.test" + " " + "\r\nConnection: close\r\nX: abcd\r\n\r\n"
	hello := helloHiding(t, "ok.example.test", request)

	// Control: the proxy's own reader takes the crafted record for a
	// ClientHello naming the tunnel's host.
	name, consumed, ok := helloName(bufio.NewReaderSize(bytes.NewReader(hello), tunnelPeek))
	if !ok || name != "ok.example.test" || len(consumed) != len(hello) {
		t.Fatalf("control: the crafted hello is not read as a ClientHello naming ok.example.test: name %q, ok %v, %d of %d bytes", name, ok, len(consumed), len(hello))
	}
	// Control: the Netty stand-in reads the request the hello hides (so
	// that what is asserted below is the proxy's check).
	if uri, _, ok := nettyRequestLine(string(hello[:bytes.IndexByte(hello, '\n')+1])); !ok || uri != "/" {
		t.Fatalf("control: the Netty stand-in does not read the hidden request line: %q %v", uri, ok)
	}
	// Control: the same lead bytes and request, in clear, are refused.
	if got := through(string(hello[5:11]) + "GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: a plain request for other.test after the same lead bytes was carried: %q", got)
	}
	// Control: a ClientHello naming the tunnel's host whose random and
	// session id hide no request is carried to the address (the stand-in,
	// no TLS server, answers 400).
	plain := helloHiding(t, "ok.example.test", strings.Repeat("r", 30)+"\r\n"+" "+strings.Repeat("s", 32))
	if got := through(string(plain)); !strings.Contains(got, "400") {
		t.Fatalf("control: a ClientHello naming the tunnel's host did not reach the address: %q", got)
	}

	// Attack.
	if got := through(string(hello)); strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to %s whose ClientHello names it but hides \"GET / HTTP/1.1\\r\\nHost: other.test\" in its random and session id was carried and served as other.test: %q", target, got)
	}
}

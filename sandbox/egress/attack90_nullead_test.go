package egress

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAttack90_NULLeadFronts (ninetieth review, medium: Host fronting
// through a tunnel to an allowed name, the eighty-eighth review's fix
// missed one lead byte). requestLine (tunnelhttp.go) now skips the lead
// bytes Netty's HttpObjectDecoder skips before a request line, but for
// NUL ("A NUL is no such lead: it marks another protocol"). Netty's
// LineParser.process, in SKIP_CONTROL_CHARS, drops every byte c with
// Character.isISOControl((char)(b & 0xFF)) || Character.isWhitespace(c),
// and isISOControl(0) is true: Netty skips a NUL as it skips 0x01. The
// eighty-eighth review's own stand-in (nettyRequestLine: c <= 0x20) does
// too. So a tunnel to ok.example.test that begins
//
//	"\x00GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"
//
// gets "no request" from requestLine at its first byte (j == i: not a
// method), the whole tunnel is carried unread, and the Netty gateway
// serves other.test.
//
// Fix: take a NUL before the method as a lead byte too (the NUL-in-line
// check after a method and a blank stays: git://'s pkt-line has its NUL
// after "0033git-upload-pack /r", which is no lead).
//
// Control: "\x01GET …" (the eighty-eighth review's case) is refused, and
// another protocol reaches the ingress.
func TestAttack90_NULLeadFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nettyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	if got := through("SSH-2.0-probe\r\n\r\n"); !strings.Contains(got, "400") {
		t.Fatalf("control: a tunnel carrying another protocol did not reach the ingress: %q", got)
	}
	if got := through("\x01GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: the eighty-eighth review's fix does not hold: %q", got)
	}
	if uri, _, ok := nettyRequestLine("\x00GET /x HTTP/1.1\r\n"); !ok || uri != "/x" {
		t.Fatalf("control: the Netty stand-in does not skip a NUL: %q %v", uri, ok)
	}
	for _, first := range []string{
		"\x00GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"\x01\x00GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"\r\n\x00 GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
	} {
		if got := through(first); strings.Contains(got, "SECRET") {
			t.Errorf("a tunnel to %s that begins %q was carried and served as other.test: %q", target, first[:min(len(first), 20)], got)
		}
	}
}

// TestAttack90_SplitProxyV2Fronts (ninetieth review, medium: the
// fifty-ninth review's PROXY header fronting, v2 form, through the
// eighty-eighth review's carry). requestLine refuses a tunnel that begins
// with the PROXY v2 signature "\r\n\r\n\x00\r\nQUIT\n" (an ingress that
// listens with the PROXY protocol reads the request after it), and asks
// for more while the bytes are a prefix of it. plainHTTP now carries lead
// bytes that are all the client has sent, and judges what follows afresh:
// "\r\n\r\n" is both a prefix of the signature and all lead bytes, so a
// command that sends it alone has it carried to the ingress, and the rest
// of the signature "\x00\r\nQUIT\n…" is judged from its NUL: no request.
// The ingress reads the whole signature across the two segments, the v2
// header (any source address the command likes), then
// "GET / HTTP/1.1\r\nHost: other.test", and serves another virtual host
// in clear.
//
// Fix: carry nothing while the bytes are still a prefix of the PROXY v2
// signature (or keep judging the carried bytes and what follows as one
// stream: requestLine(carried+next) for the signature check).
//
// Control: the same header and request sent in one write is refused.
func TestAttack90_SplitProxyV2Fronts(t *testing.T) {
	got1 := make(chan struct{}, 16)
	ln := httpIngress(t, vhostHandler, func(ln net.Listener) net.Listener { return &proxyV2Listener{Listener: ln, first: got1} })
	target := ingressTarget("ok.example.test", ln)
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))

	sig := "\r\n\r\n\x00\r\nQUIT\n"
	hdr := make([]byte, 4+12)
	hdr[0], hdr[1] = 0x21, 0x11 // v2 PROXY, TCP over IPv4
	binary.BigEndian.PutUint16(hdr[2:], 12)
	copy(hdr[4:], []byte{127, 0, 0, 1, 10, 0, 0, 2, 0x15, 0xb3, 0, 80}) // "from" 127.0.0.1
	req := "GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"

	// Control: in one write, refused.
	got := ""
	if err := inTunnel(t, addr, auth, target, sig+string(hdr)+req, func(_ net.Conn, br *bufio.Reader) {
		b, _ := io.ReadAll(br)
		got = string(b)
	}); err == nil && got != "" {
		t.Fatalf("control: a tunnel beginning with a PROXY v2 header was carried: %q", got)
	}

	// Attack: "\r\n\r\n" alone, then (once the ingress has it) the rest.
	got = ""
	inTunnel(t, addr, auth, target, sig[:4], func(c net.Conn, br *bufio.Reader) {
		select {
		case <-got1: // carried to the ingress
		case <-time.After(3 * time.Second): // (not carried: send the rest anyway)
		}
		io.WriteString(c, sig[4:]+string(hdr)+req)
		b, _ := io.ReadAll(br)
		got = string(b)
	})
	if strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to %s whose PROXY v2 signature came in two writes was carried and served as other.test: %q", target, got)
	}
}

// proxyV2Listener reads an optional PROXY protocol v2 header off each
// connection before the HTTP server sees it, as an ingress listening with
// the PROXY protocol does, and signals first once bytes have arrived.
type proxyV2Listener struct {
	net.Listener
	first chan struct{}
}

func (l *proxyV2Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(&signalReader{r: c, first: l.first})
	if b, err := br.Peek(12); err == nil && string(b) == "\r\n\r\n\x00\r\nQUIT\n" {
		br.Discard(12)
		if h, err := br.Peek(4); err == nil {
			n := int(binary.BigEndian.Uint16(h[2:]))
			br.Discard(4 + n)
		}
	}
	return &readerConn{Conn: c, r: br}, nil
}

type signalReader struct {
	r     io.Reader
	first chan struct{}
	once  sync.Once
}

func (s *signalReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.once.Do(func() { s.first <- struct{}{} })
	}
	return n, err
}

// TestAttack90_NULInTargetFronts (ninetieth review, medium, the same
// gateway): requestLine answers "no request" for a line with a NUL before
// its end ("no server reads a request line holding one"), for git://'s
// pkt-line. Netty's codec does read one: splitInitialLine splits at SP,
// HT, VT, FF and CR only, and the URI is checked (HttpUtil's
// isEncodingSafeStartLineToken, 4.1.129 on) for CR, LF and SP only; the
// request is then routed by its Host. So "GET /\x00 HTTP/1.1" with Host
// other.test, in a tunnel to ok.example.test, is carried and served as
// other.test.
//
// Fix: take the NUL as marking another protocol only where that protocol
// is recognised (git://'s pkt-line: four hex digits giving the length of
// what follows, "git-upload-pack"/"git-receive-pack"/"git-upload-archive"
// after them), or when the bytes before the NUL cannot begin a request
// line (no version can follow); else read on to the line's end and judge
// it as now.
//
// Control: git://'s pkt-line still reaches the address unjudged
// (TestAttack65GitProtocolStallsInTunnel covers it at the unit level);
// here, the same request without the NUL is refused.
func TestAttack90_NULInTargetFronts(t *testing.T) {
	target := ingressTarget("ok.example.test", vhostIngress(t, nettyRequestLine))
	through := tunnelThrough(t, target, exampleTestPolicy, loopbackNames("ok.example.test"))

	if got := through("GET /x HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); got != "" {
		t.Fatalf("control: a plain request for other.test was carried: %q", got)
	}
	if uri, _, ok := nettyRequestLine("GET /\x00 HTTP/1.1\r\n"); !ok || uri != "/\x00" {
		t.Fatalf("control: the Netty stand-in does not read a NUL in the target: %q %v", uri, ok)
	}
	if got := through("GET /\x00 HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"); strings.Contains(got, "SECRET") {
		t.Errorf("a tunnel to %s whose request line holds a NUL in its target was carried and served as other.test: %q", target, got)
	}
}

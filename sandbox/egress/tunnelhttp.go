package egress

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// A tunnel whose first bytes are a plain HTTP request is closed before
// anything reaches the address. Its Host header, and every later
// request's on the same connection, would name the site an address that
// serves several (a shared ingress, a CDN's port 80) answers, whatever the
// CONNECT host: `curl -p --connect-to other:80:allowed:80
// http://other/` was served other's pages (the fifty-sixth review), the
// fronting sni.go closes for TLS, spoken in clear. A plain request is sent
// to the proxy itself (absolute form), which judges each one's host.

// tunnelPeek is how far a tunnel's first bytes are read to judge them: a
// request line that begins like one and does not end within it is
// refused, as one whose first token fills it (ingresses read request lines
// of 8 to 16 KiB; Go's up to its header limit, where this refuses).
const tunnelPeek = 16 << 10

// plainHTTP reports whether br begins, after the empty lines a server
// skips before a request, with an HTTP request line: a method token, a
// space, and a line that ends with an HTTP version. It reads to the end of
// that line only when the bytes so far begin like one (a method and a
// space), so a protocol whose client speaks first in another form, or
// waits for the server, is carried as before; a line longer than br's
// buffer that begins like one, a token (a method: Go's server reads one
// of any length, the fifty-seventh review) or a method and a space, is
// taken as one (refused). A lookup that ends early (the client closed) is
// no request.
//
// Bytes a server skips before a request line (leadByte) that are all the
// client has sent are carried (carry) and the bytes after them judged
// afresh, as such a server reads them: a client that sends a few control
// bytes and waits for the answer is not kept waiting, and a request after
// them is still seen.
func plainHTTP(br *bufio.Reader, carry io.Writer) bool {
	n := 1
	sent := 0 // b[:sent] carried already: a line's beginning that is no GET
	for {
		b, err := br.Peek(n)
		if err != nil {
			br.Discard(sent)
			return false
		}
		verdict, more := requestLine(b)
		// Not a beginning of PROXY v2's signature ("\r\n\r\n\0…"): the
		// rest, judged afresh, read as no request, and an ingress read
		// the whole header (the ninetieth review).
		if more && allLead(b) && br.Buffered() <= len(b) && !bytes.HasPrefix(proxyV2, b) {
			if _, err := carry.Write(b); err != nil {
				return false // the upstream is gone: the copy after this ends the tunnel
			}
			br.Discard(len(b))
			n = 1
			continue
		}
		switch {
		case !more && verdict:
			return true // what was carried has no line end: no server read a request
		case !more:
			br.Discard(sent)
			return false
		case n >= br.Size():
			return true // begins like a request line and does not end in the buffer
		}
		if k := carriable(b); k > sent {
			if _, err := carry.Write(b[sent:k]); err != nil {
				return false
			}
			sent = k
		}
		// What is buffered already, else one byte more (waiting for it).
		if n = br.Buffered(); n <= len(b) {
			n = len(b) + 1
		}
		n = min(n, br.Size())
	}
}

// helloReadsAsRequest reports whether a TLS ClientHello's own bytes read
// as an HTTP request line to a server that skips control bytes before one
// (Netty's): a hello whose header bytes are all control bytes (its
// lengths chosen with padding) and whose random and session id spell
// "GET / HTTP/1.1" and a Host was carried as TLS, and a Netty ingress at
// the address served the other site it named (the hundred-and-fifth
// review). A hello of a client's never does: its random is random, its
// lengths' bytes visible or its version's. A line not ended within the
// hello is one no such server acts on before its end, and the proxy
// carries nothing after the hello before the address answers.
func helloReadsAsRequest(hello []byte) bool {
	verdict, more := requestLine(hello)
	return verdict && !more
}

// carriable returns how much of b, the bytes a tunnel began with that
// begin like a request line not yet ended, may be carried before the
// line's verdict: none when its method is a word of letters (a GET may be
// the WebSocket handshake a tunnel carries whole), else what comes before
// its first LF (the servers that read a request line end it there; a
// bare CR is no line end to them, and a binary message holding one, an
// LDAP bind's length of 13, is carried). No server acts on a request line before its end,
// and a client that speaks first without one (XMPP's stream header,
// "<?xml version='1.0'?><stream:stream …", then waits) stalled until
// its timeout (the sixty-fifth and hundred-and-fifth reviews).
func carriable(b []byte) int {
	i, j := methodSpan(b)
	if j == i || letters(b[i:j]) {
		return 0
	}
	if k := bytes.IndexByte(b[j:], '\n'); k >= 0 {
		return j + k // (the lead bytes before the method carried too, as alone)
	}
	return len(b)
}

// methodSpan returns where b's method begins (after the lead bytes a
// server skips) and ends. A method is any run of visible bytes: Apache's
// "Unsafe" parser reads one so (the seventy-second review), and a token
// is one of them.
func methodSpan(b []byte) (i, j int) {
	for i < len(b) && leadByte(b[i]) {
		i++
	}
	j = i
	for j < len(b) && b[j] > ' ' && b[j] < 0x7f {
		j++
	}
	return i, j
}

// requestLine judges the bytes a tunnel began with: more when they do not
// yet tell, else whether they are an HTTP request line.
func requestLine(b []byte) (verdict, more bool) {
	// A PROXY protocol header (v2's binary signature, v1's "PROXY " line)
	// before a request: an ingress that reads it reads the request after
	// it, and no client sends one to a forward proxy. Refused.
	switch {
	case bytes.HasPrefix(b, proxyV2):
		return true, false
	case len(b) < len(proxyV2) && bytes.HasPrefix(proxyV2, b):
		return false, true
	}
	// Before the method, a server may skip more than the empty lines RFC
	// 9112 names: Netty's codec (the JVM gateways that route on Host)
	// skips every ISO control byte, NUL included, and blank (the
	// eighty-eighth and ninetieth reviews).
	i, j := methodSpan(b)
	switch {
	case j == len(b):
		return false, true // empty lines, or a token not ended yet
	case j == i || !isBlank(b[j]) && !(sepByte(b[j]) && letters(b[i:j])):
		// Not a method and a blank; after a word of letters, 0x1c-0x1f
		// are blanks too (older Netty split the line on
		// Character.isWhitespace: the ninety-fifth review).
		return false, false
	}
	if string(b[i:j]) == "PROXY" {
		return true, false
	}
	// A NUL stays in the line whatever the method: Netty reads one in a
	// URI (the ninetieth review) and any method of visible bytes ("!!! /\0
	// HTTP/1.1" fronted another host: the hundred-and-seventh review). A
	// binary protocol's first message that waits for the server without a
	// line end (git://'s pkt-line "0033git-upload-pack /repo\0host=…\0",
	// an LDAP bind's "0\f…") is carried as it comes (carriable), its
	// method being no word of letters.
	end := bytes.IndexByte(b[j:], '\n')
	if end < 0 {
		return false, true
	}
	// The blanks a server skips after the version (nginx), and HTTP/0.9's
	// "GET uri" with no version, where the URI may name the host (the
	// fifty-ninth review).
	// What a server trims at the line's end: Netty every blank and
	// 0x1c-0x1f (Character.isWhitespace), so "HTTP/1.1\x1f" is a version
	// to it (the ninety-fifth review).
	fields := bytes.Fields(bytes.TrimRightFunc(b[j:j+end], func(r rune) bool { return r <= ' ' }))
	switch {
	case len(fields) == 1:
		// HTTP/0.9's "GET uri", or any method before an absolute URI
		// (Apache's "Unsafe" parser: the seventy-second review); one word
		// after another method is no request line (memcached's
		// "get user/42": the sixty-fifth review).
		return string(b[i:j]) == http.MethodGet || bytes.Contains(fields[0], []byte("://")), false
	case len(fields) == 0:
		return false, false
	}
	return versionShaped(fields[len(fields)-1]), false
}

// isBlank reports a blank a server's request-line parser may take after
// the method: a space, or a tab (HAProxy's HTTP_IS_SPHT, the sixtieth
// review), a vertical tab, a form feed or a carriage return (Netty's
// isSPLenient, the eighty-eighth review). Not every control byte: a
// binary protocol's first bytes (an LDAP bind's BER header, "0," and a
// length) then read as a method and a blank, and the tunnel waited for a
// line's end that never came (the ninetieth review).
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' }

// sepByte reports the information separators 0x1c-0x1f, which Java's
// Character.isWhitespace counts as white space.
func sepByte(c byte) bool { return c >= 0x1c && c <= 0x1f }

// letters reports whether tok is a word of ASCII letters, '-' and '_'
// (every method a server knows: GET, M-SEARCH).
func letters(tok []byte) bool {
	for _, c := range tok {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return len(tok) > 0
}

// allLead reports whether every byte of b is a lead byte.
func allLead(b []byte) bool {
	for _, c := range b {
		if !leadByte(c) {
			return false
		}
	}
	return true
}

// leadByte reports a byte a server may skip before a request line: a
// control byte, a blank, or a C1 control (Java's isISOControl on a byte
// read as a char: Netty's SKIP_CONTROL_CHARS).
func leadByte(c byte) bool { return c <= ' ' || (c >= 0x7f && c <= 0x9f) }

// versionShaped reports whether f looks like an HTTP version whatever its
// letters and case ("HTTP/1.1", "http/1.1", "XTTP/1.0": HAProxy before 3.0
// checks only the '/', the digits and the '.', the sixtieth review): a
// '/' followed by digits, and a '.' and digits.
func versionShaped(f []byte) bool {
	i := bytes.LastIndexByte(f, '/')
	if i < 0 {
		return false
	}
	major, minor, _ := bytes.Cut(f[i+1:], []byte("."))
	digits := func(d []byte) bool {
		for _, c := range d {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return len(major) > 0 && digits(major) && digits(minor)
}

// proxyV2 is the PROXY protocol v2 signature.
var proxyV2 = []byte("\r\n\r\n\x00\r\nQUIT\n")

// A WebSocket handshake is the one plain request a tunnel carries: clients
// tunnel ws:// (the fifty-seventh review found it refused since the fix
// above). It must be a GET asking for the websocket upgrade, with no body,
// whose Host is the tunnel's own host (and port, when it names one). What
// follows it is carried only if it does not begin like a request too: a
// server that refused the upgrade and kept the connection open would read
// a second request, whose Host could name another site.

// upgradeRequest reads the header block of the request br begins with and
// returns it when it is such a handshake to host:port, the block then
// consumed from br; else ok is false and br is left as it was.
func upgradeRequest(br *bufio.Reader, host string, port int) (block []byte, ok bool) {
	n := 1
	for {
		b, err := br.Peek(n)
		if err != nil {
			return nil, false
		}
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
			block = b[:i+4]
			break
		}
		if n >= br.Size() {
			return nil, false
		}
		if n = br.Buffered(); n <= len(b) {
			n = len(b) + 1
		}
		n = min(n, br.Size())
	}
	// Every line ends CRLF, and the request is the whole block: a bare LF
	// ends a header block for the server before the proxy's "\r\n\r\n"
	// did, and a second request hid behind the first (the sixtieth
	// review).
	if bytes.Count(block, []byte("\n")) != bytes.Count(block, []byte("\r\n")) {
		return nil, false
	}
	rd := bytes.NewReader(block)
	brd := bufio.NewReaderSize(rd, len(block)+16)
	req, err := http.ReadRequest(brd)
	if err == nil && (brd.Buffered() != 0 || rd.Len() != 0) {
		return nil, false
	}
	// Origin form only: for an absolute-form target Go takes the host
	// from the target and drops the Host line, which a server that routes
	// on the Host line reads (the sixty-fifth review).
	if err == nil && !strings.HasPrefix(req.RequestURI, "/") {
		return nil, false
	}
	// HTTP/1.1 only (RFC 6455), and no body framing in the raw block: Go
	// drops Transfer-Encoding from an HTTP/1.0 request, which Apache and
	// old nginx honour, and a chunked "body" hid a second request (the
	// seventy-second review).
	if err == nil && (!req.ProtoAtLeast(1, 1) || framed(block)) {
		return nil, false
	}
	if err != nil || req.Method != http.MethodGet || req.ContentLength != 0 || len(req.TransferEncoding) > 0 ||
		!onlyToken(req.Header, "Upgrade", "websocket") || !headerHas(req.Header, "Connection", "upgrade") ||
		len(req.Header.Values("Http2-Settings")) > 0 || headerHas(req.Header, "Connection", "http2-settings") {
		// The upgrade asked is WebSocket's alone: an address offered
		// "websocket, h2c" switched to HTTP/2, whose streams name any
		// site (:authority) and were carried unjudged after its 101 (the
		// ninety-second review).
		return nil, false
	}
	h, p, err := net.SplitHostPort(req.Host)
	if err != nil {
		h, p = strings.Trim(req.Host, "[]"), "" // an IPv6 literal on the default port
	}
	if !sameHost(h, host) || p != "" && p != strconv.Itoa(port) {
		return nil, false
	}
	block = bytes.Clone(block)
	if _, err := br.Discard(len(block)); err != nil {
		return nil, false
	}
	return block, true
}

// framed reports whether a header block has a Transfer-Encoding or a
// Content-Length line, whatever its case and blanks.
func framed(block []byte) bool {
	for line := range bytes.SplitSeq(block, []byte("\r\n")) {
		name, _, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(string(name))) {
		case "transfer-encoding", "content-length":
			return true
		}
	}
	return false
}

// headerHas reports whether the comma-separated values of header k name v
// (case-insensitively).
func headerHas(h http.Header, k, v string) bool {
	for _, line := range h.Values(k) {
		for f := range strings.SplitSeq(line, ",") {
			if strings.EqualFold(strings.TrimSpace(f), v) {
				return true
			}
		}
	}
	return false
}

// onlyToken reports whether the comma-separated values of header k are v
// alone (whatever its case), once or more.
func onlyToken(h http.Header, k, v string) bool {
	seen := false
	for _, line := range h.Values(k) {
		for f := range strings.SplitSeq(line, ",") {
			switch f = strings.TrimSpace(f); {
			case f == "":
			case strings.EqualFold(f, v):
				seen = true
			default:
				return false
			}
		}
	}
	return seen
}

// wsGUID is RFC 6455's key suffix.
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// wsAccept is the Sec-WebSocket-Accept an address that takes the
// handshake block answers ("" where the block has no single key).
func wsAccept(block []byte) string {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(block)))
	if err != nil {
		return ""
	}
	keys := req.Header.Values("Sec-Websocket-Key")
	if len(keys) != 1 || strings.TrimSpace(keys[0]) == "" {
		return ""
	}
	sum := sha1.Sum([]byte(strings.TrimSpace(keys[0]) + wsGUID))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// maxSwitchHead bounds the answer head statusSniff reads.
const maxSwitchHead = 8 << 10

// statusSniff passes what the address sends to the client through w, and
// tells once (switched) whether its answer's head is WebSocket's switch:
// a 101 with "Upgrade: websocket" alone and the Sec-WebSocket-Accept of
// the handshake's key (expect); false for any other answer, a head over
// maxSwitchHead, or a copy that ended first. A 101 to another protocol
// (h2c) is no switch to frames (the ninety-second review).
type statusSniff struct {
	w        io.Writer
	head     []byte
	mu       sync.Mutex
	accept   string
	told     bool
	switched chan bool
}

func newStatusSniff(w io.Writer) *statusSniff {
	return &statusSniff{w: w, switched: make(chan bool, 1)}
}

// expect names the Sec-WebSocket-Accept of the handshake sent; it is
// called before the handshake is.
func (s *statusSniff) expect(accept string) {
	s.mu.Lock()
	s.accept = accept
	s.mu.Unlock()
}

func (s *statusSniff) Write(b []byte) (int, error) {
	if !s.told {
		s.head = append(s.head, b[:min(len(b), maxSwitchHead-len(s.head))]...)
		if i := bytes.Index(s.head, []byte("\r\n\r\n")); i >= 0 {
			s.tell(s.switchHead(s.head[:i+4]))
		} else if len(s.head) >= maxSwitchHead {
			s.tell(false)
		}
	}
	return s.w.Write(b)
}

// switchHead judges a complete answer head.
func (s *statusSniff) switchHead(head []byte) bool {
	s.mu.Lock()
	accept := s.accept
	s.mu.Unlock()
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), nil)
	if err != nil || accept == "" || resp.StatusCode != http.StatusSwitchingProtocols {
		return false
	}
	got := resp.Header.Values("Sec-Websocket-Accept")
	return onlyToken(resp.Header, "Upgrade", "websocket") && len(got) == 1 && strings.TrimSpace(got[0]) == accept
}

// end tells false if nothing was told.
func (s *statusSniff) end() { s.tell(false) }

func (s *statusSniff) tell(v bool) {
	if !s.told {
		s.told = true
		s.switched <- v
	}
}

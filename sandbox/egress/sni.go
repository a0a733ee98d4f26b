package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"time"
)

// A tunnel is judged by its CONNECT host; the TLS a command speaks inside
// it names its own server (SNI), and an address that serves several names
// (a CDN, a shared ingress) answers the one the handshake asks for: `curl
// --connect-to other.test:443:allowed.test:443 https://other.test/` sent
// CONNECT allowed.test and reached other.test (the twenty-ninth review).
// The proxy reads the tunnel's first bytes from the command: a TLS
// ClientHello whose server name is not the CONNECT host, or a handshake
// whose hello cannot be read to its end, closes the tunnel before anything
// reaches the address. What is not TLS (or a hello without a server name)
// is carried as before; a name inside encrypted ClientHello (ECH) is not
// seen, only its outer name.

// maxHello bounds what the proxy reads to find a ClientHello's name: a
// handshake message of up to 64 KiB (what a TLS server takes) over records
// of up to 16 KiB each, with room to spare.
const maxHello = 128 << 10

// helloName reads, from br, the tunnel's first TLS ClientHello and
// returns its server name ("" when it has none, or when what the client
// sends is not TLS) and the bytes it consumed, which the caller sends on
// first. ok is false when the client began a TLS handshake whose hello
// could not be read to its end (past maxHello, malformed, cut short): a
// server might still read a name from it that the proxy did not (the
// thirtieth review padded a hello past the old bound), so the tunnel is
// refused, and so is one that begins with another TLS record than a
// handshake. It waits for the client's first byte, as the splice would.
func helloName(br *bufio.Reader) (name string, consumed []byte, ok bool) {
	first, err := br.Peek(1)
	if err != nil || first[0] < 0x14 || first[0] > 0x18 {
		return "", nil, true // not a TLS record
	}
	if first[0] != 0x16 {
		// Another TLS record (an alert, a change_cipher_spec) before the
		// hello: a server drops a warning alert and reads on, so the
		// hello after it would name a host the proxy never read (the
		// fortieth review). No client sends one first (and no other
		// protocol starts with these bytes): refused.
		// Whatever its version bytes: Go's server reads a first record of
		// any version below 0x1000 (the forty-third review).
		return "", nil, false
	}
	// The hello's records are read here, to the one that ends it, and the
	// parser is given those alone: it reads ahead, and what it read past
	// the hello was carried unread (a second hello behind the first, or
	// the first record of one, reached the server unchecked: the
	// forty-fifth review).
	recs, whole := helloRecords(br)
	if !whole {
		return "", nil, false
	}
	conn := &helloConn{r: bytes.NewReader(recs)}
	srv := tls.Server(conn, &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		name, ok = h.ServerName, true
		return nil, errHelloRead
	}})
	srv.Handshake() // stops once the hello is read (errHelloRead), or on a malformed one
	return name, recs, ok
}

// sslv2Hello reports whether br begins with an SSLv2-format ClientHello
// (a two-byte length with the high bit set, then CLIENT-HELLO): helloName
// takes it for no TLS, yet it names no server and OpenSSL still
// negotiates TLS 1.2 from it (the sixtieth review). The third byte is
// waited for only after a first byte with the high bit set.
//
// The whole header is read as OpenSSL reads it, so that another binary
// protocol whose first byte has the high bit set (a Thrift compact call,
// 82 21 01 …: the sixty-fifth review) is not taken for one: CLIENT-HELLO,
// a version of 0x0002 or 0x03xx, cipher specs a non-zero multiple of 3
// bytes, a session id of up to 32, a challenge, and a record length that
// is their sum.
func sslv2Hello(br *bufio.Reader) bool {
	if b, err := br.Peek(1); err != nil || b[0]&0x80 == 0 {
		return false
	}
	b, err := br.Peek(3)
	if err != nil || b[2] != 0x01 {
		return false
	}
	// Each field is waited for only while those before it agree (a
	// protocol that sent fewer bytes and waits for an answer is not held).
	u16 := func(i int) (int, bool) {
		b, err := br.Peek(i + 2)
		if err != nil {
			return 0, false
		}
		return int(b[i])<<8 | int(b[i+1]), true
	}
	ver, ok := u16(3)
	if !ok || (ver != 0x0002 && ver>>8 != 0x03) {
		return false
	}
	cs, ok := u16(5)
	if !ok || cs == 0 || cs%3 != 0 {
		return false
	}
	sid, ok := u16(7)
	if !ok || sid > 32 {
		return false
	}
	ch, ok := u16(9)
	n, _ := u16(0)
	// OpenSSL takes a session id of up to 32 bytes and a challenge of any
	// length (the seventy-second review): only the lengths' sum is read.
	return ok && ch > 0 && n&0x7fff == 9+cs+sid+ch
}

// maxRecord is the longest TLS record a client may send (2^14 bytes of
// plaintext, and what a compressed or protected record may add).
const maxRecord = 1<<14 + 2048

// helloRecords reads from br the handshake records that hold the client's
// first handshake message, a ClientHello, and returns them; whole is false
// when they are not that (another record type, another message, a record
// past maxRecord, a hello past maxHello, or a hello that does not end
// where a record ends: what follows it in that record would be read by a
// server as the start of the next message, unchecked).
func helloRecords(br *bufio.Reader) (recs []byte, whole bool) {
	var hs []byte
	need := -1
	for len(recs) <= maxHello {
		h, err := br.Peek(5)
		if err != nil || h[0] != 0x16 {
			return nil, false
		}
		n := int(h[3])<<8 | int(h[4])
		if n == 0 || n > maxRecord {
			return nil, false
		}
		rec := make([]byte, 5+n)
		if _, err := io.ReadFull(br, rec); err != nil {
			return nil, false
		}
		recs = append(recs, rec...)
		hs = append(hs, rec[5:]...)
		if need < 0 && len(hs) >= 4 {
			if hs[0] != 0x01 { // client_hello
				return nil, false
			}
			need = 4 + (int(hs[1])<<16 | int(hs[2])<<8 | int(hs[3]))
			if need > maxHello {
				return nil, false
			}
		}
		if need >= 0 && len(hs) >= need {
			return recs, len(hs) == need
		}
	}
	return nil, false
}

var errHelloRead = errors.New("the ClientHello was read")

// sameHost reports whether a TLS server name is the CONNECT host (case and
// a trailing dot aside).
func sameHost(sni, host string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), ".") }
	return norm(sni) == norm(strings.Trim(host, "[]"))
}

// helloConn is a net.Conn that reads from r and writes nowhere: the TLS
// server that parses the hello answers nothing to the client.
type helloConn struct{ r io.Reader }

func (c *helloConn) Read(b []byte) (int, error)       { return c.r.Read(b) }
func (c *helloConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c *helloConn) Close() error                     { return nil }
func (c *helloConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *helloConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *helloConn) SetDeadline(time.Time) error      { return nil }
func (c *helloConn) SetReadDeadline(time.Time) error  { return nil }
func (c *helloConn) SetWriteDeadline(time.Time) error { return nil }

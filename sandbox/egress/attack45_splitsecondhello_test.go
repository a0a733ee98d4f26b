package egress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strconv"
	"testing"

	"turnstile/domain"
)

// TestAttack45SplitSecondHelloPassesCheck (forty-fifth review, high; the
// same root as TestAttack45PipelinedSecondHelloUnchecked, its full form):
// the greedy read of the first hello (helloName forwards all crypto/tls
// read, not the hello's records) lets the first record of the second
// hello ride unchecked with the first hello. The rest of that second
// hello, sent after the HelloRetryRequest, is what secondHello reads as a
// new message: a record whose payload continues an extension of the
// hidden part (an unknown extension, ignored by OpenSSL) and begins with
// a complete ClientHello naming alpha.test. secondHello parses that inner
// hello, finds alpha.test, and the tunnel splices everything after it
// unwatched; the server reassembles the second hello from both records
// and reads omega.test (its server_name follows the extension). So a
// command with its own TLS 1.3 client (a shell has Python) completes a
// handshake with omega.test through a tunnel to alpha.test and speaks to
// it: TestAttack45PipelinedSecondHelloUnchecked shows OpenSSL serves the
// name of such a second hello; here a server on loopback that answers the
// first hello with a retry request records what reaches it.
//
// Fixed would look like: helloName forwards exactly the first hello's
// records and leaves the rest in br, so secondHello reads the second
// hello from its first record (and, as it reads a hello, the proxy could
// refuse a handshake message that does not end at its record's end).
//
// Control: the honest exchange (the second hello naming alpha.test, one
// record, after the retry request) reaches the server whole; the same
// second hello naming omega.test sent plainly closes the tunnel.
func TestAttack45SplitSecondHelloPassesCheck(t *testing.T) {
	hello1, ccsHello2 := rehearseRetry(t, "alpha.test")
	ccs, hello2 := ccsHello2[:6], ccsHello2[6:]
	sid := hello1[5+4+2+32+1 : 5+4+2+32+1+int(hello1[5+4+2+32])]

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	// The server answers the first record with a retry request and keeps
	// all it receives until the client's side ends.
	got := make(chan []byte, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				var hdr [5]byte
				if _, err := io.ReadFull(br, hdr[:]); err != nil {
					got <- nil
					return
				}
				first := make([]byte, binary.BigEndian.Uint16(hdr[3:]))
				if _, err := io.ReadFull(br, first); err != nil {
					got <- nil
					return
				}
				c.Write(hrrRecord(sid))
				rest, _ := io.ReadAll(br)
				got <- append(append(hdr[:], first...), rest...)
			}(c)
		}
	}()

	target := "alpha.test:" + strconv.Itoa(port)
	j := newSnapJudge()
	j.set("t1", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"alpha.test"}})
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{"alpha.test": {netip.MustParseAddr("127.0.0.1")}}})
	addr := startProxy(t, p)
	marker := []byte{0x17, 0x03, 0x03, 0x00, 0x08, 'F', 'I', 'N', 'I', 'S', 'H', 'E', 'D'}

	// exchange writes first, reads the retry request, writes second and
	// the marker, ends its side and returns what reached the server.
	exchange := func(first, second []byte) []byte {
		c, br, status := dialConnect(t, addr, "t1", p.Credential("t1"), target)
		if status != "200 Connection established " {
			t.Fatalf("CONNECT %s: %s", target, status)
		}
		defer c.Close()
		if _, err := c.Write(first); err != nil {
			t.Fatal(err)
		}
		hrr := make([]byte, len(hrrRecord(sid)))
		if _, err := io.ReadFull(br, hrr); err != nil {
			t.Fatalf("no retry request through the tunnel: %v", err)
		}
		c.Write(second)
		c.Write(marker)
		c.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, br)
		return <-got
	}

	// Control: the honest exchange.
	honest := append(append([]byte{}, hello1...), ccs...)
	if recv := exchange(honest, hello2); !bytes.HasSuffix(recv, append(append([]byte{}, hello2...), marker...)) {
		t.Fatalf("control: the honest exchange did not reach the server whole (%d bytes)", len(recv))
	}
	// Control: a second hello naming omega.test, plainly, is refused.
	omega := bytes.Replace(hello2, []byte("alpha.test"), []byte("omega.test"), 1)
	if recv := exchange(honest, omega); bytes.Contains(recv, marker) || bytes.Contains(recv, []byte("omega.test")) {
		t.Fatalf("control: a plain second hello naming omega.test went through")
	}

	// The attack: the second hello (naming omega.test) gets a first
	// extension whose data is the first hello's message; its record is
	// cut where that data begins.
	msg := omega[5:]
	body := msg[4:]
	off := 2 + 32
	off += 1 + int(body[off])
	off += 2 + int(binary.BigEndian.Uint16(body[off:]))
	off += 1 + int(body[off])
	extLen := int(binary.BigEndian.Uint16(body[off:]))
	inner := hello1[5:]
	var nb []byte
	nb = append(nb, body[:off]...)
	nb = binary.BigEndian.AppendUint16(nb, uint16(extLen+4+len(inner)))
	nb = append(nb, 0xfa, 0xfa)
	nb = binary.BigEndian.AppendUint16(nb, uint16(len(inner)))
	cut := 4 + len(nb)
	nb = append(nb, inner...)
	nb = append(nb, body[off+2:]...)
	nm := append([]byte{0x01, byte(len(nb) >> 16), byte(len(nb) >> 8), byte(len(nb))}, nb...)
	rec := func(b []byte) []byte {
		return append([]byte{0x16, 0x03, 0x03, byte(len(b) >> 8), byte(len(b))}, b...)
	}
	first := append(append(append([]byte{}, hello1...), ccs...), rec(nm[:cut])...)
	recv := exchange(first, rec(nm[cut:]))
	if bytes.Contains(recv, marker) && bytes.Contains(recv, []byte("omega.test")) {
		t.Errorf("a second ClientHello naming omega.test, its first record sent with the first hello and the rest (beginning with a hello naming alpha.test) after the retry request, passed the check: the server received it and the client's records after it (%d bytes); want the tunnel closed", len(recv))
	}
}

// hrrRecord is a HelloRetryRequest for P-256 and TLS_AES_256_GCM_SHA384
// echoing the session id sid.
func hrrRecord(sid []byte) []byte {
	var m []byte
	m = append(m, 0x03, 0x03)
	m = append(m, hrrRandom...)
	m = append(m, byte(len(sid)))
	m = append(m, sid...)
	m = append(m, 0x13, 0x02, 0x00)
	ext := []byte{0x00, 0x2b, 0x00, 0x02, 0x03, 0x04, 0x00, 0x33, 0x00, 0x02, 0x00, 0x17}
	m = append(m, byte(len(ext)>>8), byte(len(ext)))
	m = append(m, ext...)
	hs := append([]byte{0x02, byte(len(m) >> 16), byte(len(m) >> 8), byte(len(m))}, m...)
	return append([]byte{0x16, 0x03, 0x03, byte(len(hs) >> 8), byte(len(hs))}, hs...)
}

// TestAttack45SplitSecondHelloOpenSSL: the split second hello of
// TestAttack45SplitSecondHelloPassesCheck (its server_name after an
// unknown extension 0xfafa whose data is the first hello's message) sent
// to `openssl s_server -servername alpha.test -servername_fatal`: OpenSSL
// reassembles it from its two records and reads omega.test (a fatal
// unrecognized_name alert), while the proxy read alpha.test. Control: the
// same split hello naming alpha.test gets the server's ServerHello.
func TestAttack45SplitSecondHelloOpenSSL(t *testing.T) {
	port := alphaRetryServer(t)

	target := "alpha.test:" + strconv.Itoa(port)
	j := newSnapJudge()
	j.set("t1", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"alpha.test"}})
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{"alpha.test": {netip.MustParseAddr("127.0.0.1")}}})
	addr := startProxy(t, p)

	hello1, ccsHello2 := rehearseRetry(t, "alpha.test")

	// run sends hello1, the CCS and hello2 (its name replaced by second)
	// in one write and returns the server's records until it closes:
	// whether it sent a real ServerHello and whether a fatal
	// unrecognized_name alert.
	run := func(second string) (serverHello, unrecognized bool) {
		c, br, status := dialConnect(t, addr, "t1", p.Credential("t1"), target)
		if status != "200 Connection established " {
			t.Fatalf("CONNECT %s: %s", target, status)
		}
		defer c.Close()
		ccs, hello2 := ccsHello2[:6], ccsHello2[6:]
		omega := bytes.Replace(hello2, []byte("alpha.test"), []byte(second), 1)
		msg := omega[5:]
		body := msg[4:]
		off := 2 + 32
		off += 1 + int(body[off])
		off += 2 + int(binary.BigEndian.Uint16(body[off:]))
		off += 1 + int(body[off])
		extLen := int(binary.BigEndian.Uint16(body[off:]))
		inner := hello1[5:]
		var nb []byte
		nb = append(nb, body[:off]...)
		nb = binary.BigEndian.AppendUint16(nb, uint16(extLen+4+len(inner)))
		nb = append(nb, 0xfa, 0xfa)
		nb = binary.BigEndian.AppendUint16(nb, uint16(len(inner)))
		cut := 4 + len(nb)
		nb = append(nb, inner...)
		nb = append(nb, body[off+2:]...)
		nm := append([]byte{0x01, byte(len(nb) >> 16), byte(len(nb) >> 8), byte(len(nb))}, nb...)
		rec := func(b []byte) []byte {
			return append([]byte{0x16, 0x03, 0x03, byte(len(b) >> 8), byte(len(b))}, b...)
		}
		first := append(append(append([]byte{}, hello1...), ccs...), rec(nm[:cut])...)
		c.Write(first)
		sentSecond := false
		for i := 0; i < 20; i++ {
			var hdr [5]byte
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint16(hdr[3:]))
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
			if !sentSecond {
				c.Write(rec(nm[cut:]))
				sentSecond = true
				continue
			}
			switch {
			case hdr[0] == 0x15 && len(body) == 2 && body[1] == 112:
				unrecognized = true
				return
			case hdr[0] == 0x15:
				return
			case hdr[0] == 0x16 && len(body) >= 38 && body[0] == 0x02 && !bytes.Equal(body[6:38], hrrRandom):
				serverHello = true
				return
			}
		}
		return
	}

	if sh, _ := run("alpha.test"); !sh {
		t.Fatalf("control: the split second hello naming alpha.test got no ServerHello")
	}
	if _, unrec := run("omega.test"); unrec {
		t.Errorf("a second ClientHello naming omega.test, split so that secondHello reads a hello naming alpha.test, went through the tunnel and OpenSSL read omega.test (unrecognized_name alert); want the tunnel closed")
	}
}

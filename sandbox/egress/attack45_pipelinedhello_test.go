package egress

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strconv"
	"testing"

	"turnstile/domain"
)

// TestAttack45PipelinedSecondHelloUnchecked (forty-fifth review, medium):
// helloName hands the first ClientHello to a crypto/tls server reading
// through a TeeReader, and forwards everything that server read. But
// crypto/tls reads greedily (readFromUntil grows its buffer by 512 bytes
// and takes all that is buffered), so the bytes "consumed" by the first
// hello include whatever the client sent right behind it. A client that
// writes its first hello (alpha.test), a change_cipher_spec and its
// second hello (omega.test) in one segment, before the server's
// HelloRetryRequest, has the second hello forwarded with the first,
// unchecked; secondHello then waits on bytes that come after it. OpenSSL
// reads the second hello's name: here `s_server -servername alpha.test
// -servername_fatal` answers with a fatal unrecognized_name alert, which
// comes back through the tunnel, so the server read omega.test (a real
// virtual host would pick omega.test's context and certificate, and send
// its flight back to the client).
//
// Fixed would look like: helloName forwards exactly the records of the
// first hello (parse the record lengths, hand the crypto/tls parser a
// reader bounded to them, or push what it read past them back in front of
// br), so the second hello is always read by secondHello.
//
// Control: the same pipelined bytes with the second hello naming
// alpha.test get the server's real ServerHello (after its retry).
func TestAttack45PipelinedSecondHelloUnchecked(t *testing.T) {
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
		h2 := bytes.Replace(ccsHello2, []byte("alpha.test"), []byte(second), 1)
		if _, err := c.Write(append(append([]byte{}, hello1...), h2...)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			var hdr [5]byte
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint16(hdr[3:]))
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
			switch {
			case hdr[0] == 0x15 && len(body) == 2 && body[1] == 112:
				unrecognized = true
				return
			case hdr[0] == 0x16 && len(body) >= 38 && body[0] == 0x02 && !bytes.Equal(body[6:38], hrrRandom):
				serverHello = true
				return
			}
		}
		return
	}

	if sh, _ := run("alpha.test"); !sh {
		t.Fatalf("control: pipelined hellos both naming alpha.test got no ServerHello")
	}
	if _, unrec := run("omega.test"); unrec {
		t.Errorf("a second ClientHello naming omega.test, written in the same segment as the first (alpha.test), went through the tunnel unchecked and the server read its name (unrecognized_name alert); want the tunnel closed")
	}
}

// rehearseRetry runs crypto/tls's client (X25519 first, P-256 second)
// against a fake server that answers its first hello with a
// HelloRetryRequest for P-256 and TLS_AES_256_GCM_SHA384 (what OpenSSL
// picks), and returns the first hello's record and the
// change_cipher_spec and second hello records the client then wrote.
func rehearseRetry(t *testing.T, name string) (hello1, ccsHello2 []byte) {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go tls.Client(a, &tls.Config{ServerName: name, InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
		CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256}}).Handshake()
	readRec := func() []byte {
		var hdr [5]byte
		if _, err := io.ReadFull(b, hdr[:]); err != nil {
			t.Fatal(err)
		}
		body := make([]byte, binary.BigEndian.Uint16(hdr[3:]))
		if _, err := io.ReadFull(b, body); err != nil {
			t.Fatal(err)
		}
		return append(hdr[:], body...)
	}
	hello1 = readRec()
	// session id: after record header 5, handshake header 4, version 2, random 32
	sid := hello1[5+4+2+32+1 : 5+4+2+32+1+int(hello1[5+4+2+32])]
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
	rec := append([]byte{0x16, 0x03, 0x03, byte(len(hs) >> 8), byte(len(hs))}, hs...)
	go b.Write(rec)
	for {
		r := readRec()
		ccsHello2 = append(ccsHello2, r...)
		if r[0] == 0x16 {
			break
		}
	}
	return hello1, ccsHello2
}

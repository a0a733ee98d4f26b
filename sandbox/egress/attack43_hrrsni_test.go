package egress

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack43SecondHelloAfterRetryFronts (forty-third review, low): the
// tunnel's SNI check reads the first ClientHello only. In TLS 1.3 a client
// whose key share the server cannot use is sent a HelloRetryRequest and
// answers with a second ClientHello, in the clear like the first, which
// the proxy, already splicing, never reads. OpenSSL's server (3.0 here,
// what nginx, HAProxy and Apache terminate TLS with) parses the second
// hello's server_name anew and runs the server-name callback on it, the
// callback that picks the virtual host's certificate and context: a
// command that opens a tunnel to alpha.test, says alpha.test in its first
// hello and omega.test in its second is handled as omega.test, past a
// check that refuses the same name in the first hello. (Go's crypto/tls
// refuses a second hello whose name changed; OpenSSL does not.)
//
// Here the server is `openssl s_server -servername alpha.test
// -servername_fatal`, which answers a hello naming any other host with a
// fatal unrecognized_name alert: the client's second hello, rewritten in
// flight from alpha.test to omega.test, draws that alert through the
// proxy's tunnel, so the server read omega.test.
//
// Fixed would look like: the proxy keeps reading the client's side past
// the first hello while the server's side is a HelloRetryRequest (a
// ServerHello whose random is the HRR constant) and checks the second
// ClientHello's name too; or refuses a tunnel whose server asks for a
// retry.
//
// Controls: the same handshake unchanged (with its retry) succeeds through
// the proxy; a first hello naming omega.test is refused by the proxy and
// never reaches the server.
func TestAttack43SecondHelloAfterRetryFronts(t *testing.T) {
	// -groups P-256 while the client's first share is X25519: a retry.
	port := alphaRetryServer(t)

	target := "alpha.test:" + strconv.Itoa(port)
	j := newSnapJudge()
	j.set("t1", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"alpha.test"}})
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{"alpha.test": {netip.MustParseAddr("127.0.0.1")}}})
	addr := startProxy(t, p)

	// handshake opens a tunnel to alpha.test and runs a TLS 1.3
	// handshake naming sni whose second hello (after the retry), if
	// second is set, names second instead.
	handshake := func(sni, second string) error {
		c, br, status := dialConnect(t, addr, "t1", p.Credential("t1"), target)
		if status != "200 Connection established " {
			t.Fatalf("CONNECT %s: %s", target, status)
		}
		if br.Buffered() != 0 {
			t.Fatalf("bytes after the CONNECT answer")
		}
		defer c.Close()
		rc := &helloRewriter{Conn: c, from: sni, to: second}
		tc := tls.Client(rc, &tls.Config{ServerName: sni, InsecureSkipVerify: true,
			MinVersion: tls.VersionTLS13, CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256}})
		err := tc.Handshake()
		if rc.hellos < 2 && err == nil {
			t.Fatalf("no HelloRetryRequest: the server took the first share")
		}
		return err
	}

	if err := handshake("alpha.test", ""); err != nil {
		t.Fatalf("control: a handshake (with its retry) naming alpha.test: %v", err)
	}
	if err := handshake("omega.test", ""); err == nil || strings.Contains(err.Error(), "unrecognized name") {
		t.Fatalf("control: a first hello naming omega.test reached the server (%v): the SNI check is not in force", err)
	}

	if err := handshake("alpha.test", "omega.test"); err != nil && strings.Contains(err.Error(), "unrecognized name") {
		t.Errorf("a second ClientHello (after a HelloRetryRequest) naming omega.test went through the tunnel to alpha.test and the server read its name (%v); want the tunnel closed like a first hello naming omega.test", err)
	}
}

// helloRewriter is a net.Conn that, with to set, writes the client's
// second ClientHello with the name from replaced by to (same length).
type helloRewriter struct {
	net.Conn
	from, to string
	hellos   int
}

func (c *helloRewriter) Write(b []byte) (int, error) {
	if len(b) > 5 && b[0] == 0x16 && b[5] == 0x01 {
		c.hellos++
		if c.hellos == 2 && c.to != "" {
			b = bytes.Replace(b, []byte(c.from), []byte(c.to), 1)
		}
	}
	return c.Conn.Write(b)
}

// alphaRetryServer runs `openssl s_server` (startSServer) for alpha.test,
// a P-256 certificate its first and second, taking the P-256 group only
// and ending a handshake that names another server with a fatal
// unrecognized_name alert (-servername alpha.test -servername_fatal); it
// returns its port.
func alphaRetryServer(t *testing.T) int {
	t.Helper()
	return startSServer(t, "alpha.test", writeSelfSigned, func(cert, key string) []string {
		return []string{"-cert2", cert, "-key2", key, "-groups", "P-256", "-servername", "alpha.test", "-servername_fatal"}
	})
}

// writeSelfSigned writes a P-256 certificate for name and its key.
func writeSelfSigned(t *testing.T, certPath, keyPath, name string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	writeCertAndKey(t, certPath, keyPath, name, k, &pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
}

// writeCertAndKey writes a certificate for name, self-signed by k and
// valid for an hour either side of now, to certPath, and keyBlock (k in
// PEM) to keyPath.
func writeCertAndKey(t *testing.T, certPath, keyPath, name string, k crypto.Signer, keyBlock *pem.Block) {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, k.Public(), k)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(keyBlock), 0o600); err != nil {
		t.Fatal(err)
	}
}

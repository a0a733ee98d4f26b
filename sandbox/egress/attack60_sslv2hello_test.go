package egress

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// sslv2HelloFromClient is an SSLv2-format ClientHello (RFC 5246 appendix E.2) that
// offers TLS 1.2: a two-byte record header with the high bit set, message
// type 1, version 3.3, the cipher specs (three bytes each, TLS suites as
// 0x00XXYY) and a 32-byte challenge. It has no extensions: no server name.
func sslv2HelloFromClient() []byte {
	specs := []byte{
		0x00, 0xc0, 0x2f, // ECDHE-RSA-AES128-GCM-SHA256
		0x00, 0x00, 0x9c, // AES128-GCM-SHA256
		0x00, 0x00, 0xff, // the renegotiation SCSV
	}
	body := []byte{0x01, 0x03, 0x03, 0, byte(len(specs)), 0, 0, 0, 32}
	body = append(body, specs...)
	for i := range 32 {
		body = append(body, byte(i*7+1))
	}
	return append([]byte{0x80 | byte(len(body)>>8), byte(len(body))}, body...)
}

// serverHelloBack reports whether c answers with a TLS handshake record
// holding a ServerHello (what a server sends once it took the hello).
func serverHelloBack(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	h := make([]byte, 6)
	if _, err := io.ReadFull(c, h); err != nil {
		return false
	}
	return h[0] == 0x16 && h[1] == 0x03 && h[5] == 0x02
}

// writeSelfSignedRSA writes an RSA certificate for name and its key (an
// SSLv2-format hello carries no curves: ECDSA is never shared with it).
func writeSelfSignedRSA(t *testing.T, certPath, keyPath, name string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	writeCertAndKey(t, certPath, keyPath, name, k, &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// startSServer runs `openssl s_server -www` on 127.0.0.1 with a
// certificate for name and its key, which write makes, plus the arguments
// args returns for their paths (args may be nil), and returns its port
// once it listens (each attempt to connect is a connection it accepts and
// drops, no handshake). Without openssl the test is skipped.
func startSServer(t *testing.T, name string, write func(t *testing.T, certPath, keyPath, name string), args func(cert, key string) []string) int {
	t.Helper()
	opensslBin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl")
	}
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	write(t, cert, key, name)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	logf, err := os.Create(filepath.Join(dir, "s_server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	argv := []string{"s_server", "-www", "-accept", "127.0.0.1:" + strconv.Itoa(port), "-cert", cert, "-key", key}
	if args != nil {
		argv = append(argv, args(cert, key)...)
	}
	srv := exec.Command(opensslBin, argv...)
	srv.Stdout, srv.Stderr = logf, logf
	stdin, err := srv.StdinPipe() // s_server ends at its stdin's end
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			c.Close()
			return port
		}
		if i > 2000 {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("s_server does not listen: %v: %s", err, log)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAttack60SSLv2HelloNamesNoServer (sixtieth review, low): the
// fifty-ninth review's held idea, fixed in 6d8bb72, closes a tunnel to a
// host name whose TLS ClientHello names no server: the address would pick
// the site by the Host inside TLS, which the proxy cannot see (fronting
// without SNI). helloName (sni.go) takes a tunnel for TLS only when its
// first byte is a TLS record type (0x14-0x18); anything else is "not a
// TLS record" and, unless it begins like an HTTP request line, is carried
// unread (proxy.go connect). An SSLv2-format ClientHello (first byte 0x80
// | length) is still read by OpenSSL's server — 3.0 here, what nginx,
// HAProxy and Apache terminate TLS with — which negotiates TLS 1.2 from
// it (the record layer's SSLv2 ClientHello compatibility; a server on
// OpenSSL 1.1.1, or on 3.0 at security level 0 as Mozilla's "old"
// configuration sets, completes the handshake). It has no
// extensions, so no server name: the tunnel to ok.example.test completes
// a TLS handshake that names no server, the very handshake the fix closes
// when written as a TLS record.
//
// Fix: in helloName, a first byte with the high bit set whose third byte
// is 1 (SSL2_MT_CLIENT_HELLO) is an SSLv2-format hello: refuse it (no
// client sends one today), or treat it as a hello naming no server.
//
// Controls: the SSLv2-format hello sent straight to s_server is answered
// with a ServerHello (the server reads it); a TLS hello naming no server
// in the same tunnel is closed (the fix in place); one naming the tunnel's
// host completes. Attack: the SSLv2-format hello in the tunnel must not
// be answered.
func TestAttack60SSLv2HelloNamesNoServer(t *testing.T) {
	// SECLEVEL=0: a hello without extensions leaves TLS 1.2's default
	// SHA-1 signature, which OpenSSL 3.0 refuses at its default level and
	// 1.1.1 (still common under nginx) takes; Mozilla's "old" server
	// configuration for 3.0 sets the same level.
	port := startSServer(t, "ok.example.test", writeSelfSignedRSA, func(_, _ string) []string { return []string{"-cipher", "DEFAULT@SECLEVEL=0"} })
	ps := strconv.Itoa(port)

	// Control: the server reads an SSLv2-format hello.
	c, err := net.Dial("tcp", "127.0.0.1:"+ps)
	if err != nil {
		t.Fatal(err)
	}
	c.Write(sslv2HelloFromClient())
	if !serverHelloBack(c) {
		c.Close()
		t.Skip("this openssl does not take an SSLv2-format ClientHello")
	}
	c.Close()

	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}})
	addr := startProxy(t, p)
	target := "ok.example.test:" + ps
	tunnel := func() net.Conn {
		c, _, st := dialConnect(t, addr, "t", p.Credential("t"), target)
		if !strings.HasPrefix(st, "200") {
			t.Fatalf("CONNECT %s: %s", target, st)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return c
	}
	handshake := func(serverName string) error {
		tc := tls.Client(tunnel(), &tls.Config{ServerName: serverName, InsecureSkipVerify: true})
		defer tc.Close()
		return tc.Handshake()
	}
	// Controls: the fix for a TLS-record hello without a name holds, and
	// the honest hello passes.
	if err := handshake("ok.example.test"); err != nil {
		t.Fatalf("control: a hello naming the tunnel's host: %v", err)
	}
	if err := handshake(""); err == nil {
		t.Fatal("control: a TLS hello naming no server in a tunnel to ok.example.test completed its handshake")
	}
	// Attack.
	c = tunnel()
	defer c.Close()
	c.Write(sslv2HelloFromClient())
	if serverHelloBack(c) {
		t.Errorf("an SSLv2-format ClientHello (no server name) in a tunnel to %s was carried and answered with a ServerHello", target)
	}
}

package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"testing"
)

// TestHelloName: the server name of a real ClientHello is read and the
// bytes read are handed back whole (they go to the address first); a
// client that speaks something else first is read from not at all.
func TestHelloName(t *testing.T) {
	cli, srv := net.Pipe()
	go func() {
		tls.Client(cli, &tls.Config{ServerName: "other.test", InsecureSkipVerify: true}).Handshake()
	}()
	br := bufio.NewReader(srv)
	name, hello, ok := helloName(br)
	cli.Close()
	if name != "other.test" || len(hello) < 5 || hello[0] != 0x16 || !ok {
		t.Fatalf("name %q, %d bytes read", name, len(hello))
	}
	if sameHost(name, "rebind.test") || !sameHost("Other.Test.", "other.test") {
		t.Fatal("sameHost")
	}
	plain := bufio.NewReader(bytes.NewReader([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")))
	if name, read, ok := helloName(plain); name != "" || read != nil || !ok {
		t.Fatalf("plain text: %q %q", name, read)
	}
	if rest, _ := io.ReadAll(plain); string(rest) != "GET / HTTP/1.1\r\nHost: x\r\n\r\n" {
		t.Fatalf("plain text was consumed: %q", rest)
	}
	// A handshake record that never completes a hello is not read as one
	// without a name: the tunnel is refused.
	cut := bufio.NewReader(bytes.NewReader(append([]byte{0x16, 3, 1, 0x40, 0}, make([]byte, 100)...)))
	if _, _, ok := helloName(cut); ok {
		t.Fatal("a hello cut short was read as one without a name")
	}
}

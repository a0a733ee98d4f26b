package egress

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"testing"

	"turnstile/domain"
)

// TestAttack65ThriftCompactTakenForSSLv2 (sixty-fifth review, low, a false
// deny new in 695d2ec): sslv2Hello (sni.go) takes any tunnel whose first
// byte has the high bit set and whose third byte is 0x01 for an
// SSLv2-format ClientHello, and proxy.go connect refuses it when the
// CONNECT host is a name. Apache Thrift's compact protocol (unframed
// TSocket, the Java and C++ default transports) begins every call with
// 0x82 (its protocol id), then (type<<5)|version = 0x21 for a CALL, then
// the sequence id as a varint — 1 for a client's first call (TServiceClient
// counts from ++seqid_): 82 21 01. A Thrift service on an allowed host
// name is unreachable through the proxy (Java's Socket speaks CONNECT
// through a Proxy.Type.HTTP since Java 9), while the same bytes to its IP
// literal are carried.
//
// Fix: read the SSLv2 header as one: a two-byte record length with the
// high bit (or a three-byte header), MSG-CLIENT-HELLO (1), a version of
// 0x0002 or 0x03xx, cipher-specs length a non-zero multiple of 3, session
// id 0 or 16, challenge 16..32, and the lengths adding up to the record's;
// refuse only that.
//
// Control: the call to the service's IP literal is carried and answered.
// Attack: the same call to the service's host name must be carried;
// today the tunnel is refused.
func TestAttack65ThriftCompactTakenForSSLv2(t *testing.T) {
	call := []byte{0x82, 0x21, 0x01, 0x04, 'p', 'i', 'n', 'g', 0x00} // ping(), seqid 1, empty args
	ln := acceptEach(t, "tcp4", "127.0.0.1:0", func(c net.Conn) {
		got := make([]byte, len(call))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != string(call) {
			return
		}
		c.Write([]byte{0x82, 0x41, 0x01, 0x04, 'p', 'i', 'n', 'g', 0x00}) // the REPLY
	})
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	addr, auth := tunnelProxy(t, domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true}, loopbackNames("rpc.example.test"))
	ping := func(target string) (reply []byte) {
		if err := inTunnel(t, addr, auth, target, string(call), func(_ net.Conn, br *bufio.Reader) {
			reply, _ = io.ReadAll(io.LimitReader(br, int64(len(call))))
		}); err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		return reply
	}
	if got := ping("127.0.0.1:" + port); len(got) != len(call) {
		t.Fatalf("control: a Thrift compact call to the IP literal was answered %x", got)
	}
	if got := ping("rpc.example.test:" + port); len(got) != len(call) {
		t.Errorf("a Thrift compact call (82 21 01 ...) to rpc.example.test was answered %x: the tunnel was refused as an SSLv2 ClientHello", got)
	}
}

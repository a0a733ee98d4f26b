package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
)

// TestAttack90_WebSocketFrameStalls (ninetieth review, low-medium, a false
// deny the eighty-eighth review's fix introduced: a ws:// tunnel hangs).
// After a tunnel's WebSocket handshake, proxy.go asks plainHTTP again of
// what the client sends next, its first frame. A client frame begins
// with FIN and an opcode (0x81 text, 0x82 binary) and the masked length
// (0x80|len: 0x80-0x9f for up to 31 bytes), then four random mask bytes
// and the masked payload. leadByte now takes C1 bytes (0x80-0x9f) for
// lead bytes a server skips, and isBlank any control byte but NUL and LF:
// the frame's two first bytes are skipped, and a mask and payload that
// read as visible bytes (a "method"), possibly then a control byte (the
// "blank"), with no NUL or LF after, make plainHTTP wait for a line end
// the client never sends: it waits for the server's answer to its frame.
// With random masks about one small frame in ten is so (the first byte
// after the header visible, ~0.5; the run ending in a control byte, ~0.2;
// no NUL or LF in the rest). Before the fix, 0x81 was no lead and the
// frame was carried at once.
//
// Fix: what follows an accepted upgrade is frames, not requests: hold
// the bytes after the handshake only until the upstream's status line
// (101: carry them unjudged; anything else: judge them as now), rather
// than judging frames as a lenient request line; or, at least, stop
// waiting at a byte a request line cannot hold that early (a method over
// a few dozen bytes with a control byte after it, as the sixty-fifth
// review asked of a NUL).
//
// Fixed: proxy.go holds the bytes after the handshake until the
// address's status line (statusSniff): after a 101 they are carried
// unjudged; after any other they are judged as before. Tested through the
// proxy: an address that switches protocols and echoes the frames it gets,
// and, after a refused upgrade, a request for another host is refused
// (TestTunnelWebSocketHandshakeOnly).
//
// Control: a frame whose mask makes a byte that is neither visible nor a
// control byte right after the header is carried at once, as every frame
// was before.
func TestAttack90_WebSocketFrameStalls(t *testing.T) {
	// An address that switches protocols and then echoes what it gets.
	ws := listenOn(t, "127.0.0.1:0", func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
		io.Copy(c, br)
	})
	_, port, _ := net.SplitHostPort(ws)
	target := "ok.example.test:" + port
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))
	frame := func(mask [4]byte, payload string) []byte {
		b := []byte{0x81, 0x80 | byte(len(payload)), mask[0], mask[1], mask[2], mask[3]}
		for i := range len(payload) {
			b = append(b, payload[i]^mask[i%4])
		}
		return b
	}
	hs := "GET /ws HTTP/1.1\r\nHost: " + target + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	for _, f := range [][]byte{
		frame([4]byte{0xe1, 0x9a, 0x33, 0xc4}, `{"op":"sub"}`), // control: a high mask byte first
		frame([4]byte{'A', 'B', 'C', 'D'}, "hello"),
		frame([4]byte{'A', 'B', 0x05, 'D'}, "hello"),
	} {
		var echoed []byte
		if err := inTunnel(t, addr, auth, target, hs, func(c net.Conn, br *bufio.Reader) {
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("the handshake: %v %v", resp, err)
			}
			c.Write(f)
			echoed = make([]byte, len(f))
			if _, err := io.ReadFull(br, echoed); err != nil {
				echoed = nil
			}
		}); err != nil {
			t.Fatalf("CONNECT: %v", err)
		}
		if string(echoed) != string(f) {
			t.Errorf("a WebSocket client frame %q after an accepted handshake was not carried (the tunnel stalls or was closed): echoed %q", f, echoed)
		}
	}
}

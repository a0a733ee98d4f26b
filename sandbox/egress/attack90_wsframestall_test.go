package egress

import (
	"bufio"
	"io"
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
// Control: a frame whose mask makes a byte that is neither visible nor a
// control byte right after the header is carried at once, as every frame
// was before.
func TestAttack90_WebSocketFrameStalls(t *testing.T) {
	judge := func(first []byte) (request, asked bool) {
		r := &askReader{data: first}
		return plainHTTP(bufio.NewReaderSize(r, tunnelPeek), io.Discard), r.asked
	}
	frame := func(mask [4]byte, payload string) []byte {
		b := []byte{0x81, 0x80 | byte(len(payload)), mask[0], mask[1], mask[2], mask[3]}
		for i := range len(payload) {
			b = append(b, payload[i]^mask[i%4])
		}
		return b
	}
	if req, asked := judge(frame([4]byte{0xe1, 0x9a, 0x33, 0xc4}, `{"op":"sub"}`)); req || asked {
		t.Fatalf("control: a frame led by a high mask byte: request %v, asked for more %v", req, asked)
	}
	for _, mask := range [][4]byte{{'A', 'B', 'C', 'D'}, {'A', 'B', 0x05, 'D'}} {
		f := frame(mask, "hello")
		if req, asked := judge(f); req || asked {
			t.Errorf("a WebSocket client frame %q after the handshake: request %v, asked for bytes the client sends only once answered %v (the tunnel stalls)", f, req, asked)
		}
	}
}

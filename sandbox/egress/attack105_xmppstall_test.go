package egress

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestAttack105_XMPPStreamStallsInTunnel (hundred-and-fifth review, low, a
// false deny: the tunnel hangs). An XMPP client (c2s, port 5222, STARTTLS
// after the stream opens: Gajim, Pidgin, Smack and Slixmpp all reach it
// through an HTTP proxy with CONNECT) opens with its stream header and
// waits for the server's: "<?xml version='1.0'?><stream:stream to='…' …>"
// or "<stream:stream xmlns='jabber:client' …>", with no line end.
// plainHTTP (tunnelhttp.go) reads "<?xml" or "<stream:stream" as a method
// (any run of visible bytes, since the seventy-second review), the space
// as its blank, and then waits for a '\n' to judge the version: nothing
// reaches the server, which never answers, and the session hangs until a
// timeout ends the tunnel. The sixty-fifth review named the class ("any
// protocol whose client speaks first with word SP … and no newline") and
// the sixty-fifth and ninetieth fixes stopped the wait at a NUL or a
// control byte only; an XML stream header holds neither.
//
// Fixed (carriable): the first line's bytes are carried as they come,
// its line feed held back until the completed line is judged: a server acts
// on a request line only once its '\n' arrives, so the tunnel passes
// "word SP …" at once (XMPP's server then answers) and still closes,
// before the line end reaches the address, a line that completes as a
// request. (Carrying the partial line outright, or refusing a '<'-led
// method, would reopen the seventy-second review's Apache "Unsafe"
// fronting: "<X / HTTP/1.1" sent in two parts.) A method of letters (a GET
// may be the WebSocket handshake carried whole) is held as before.
//
// The test: when the judge asks the client for bytes it sends only once
// answered, the stream header has reached the address already.
// Controls: the same stream header with a line end is judged at once (no
// request); an HTTP request line is still taken for one; "<X / HTTP/1.1"
// then its line end and a Host, sent in two parts, is a request, and what
// reached the address before the verdict holds no line end.
func TestAttack105_XMPPStreamStallsInTunnel(t *testing.T) {
	judge := func(parts ...string) (request bool, carried string, carriedWhenAsked []string) {
		var c bytes.Buffer
		r := &partsReader{parts: parts, onAsk: func() { carriedWhenAsked = append(carriedWhenAsked, c.String()) }}
		return plainHTTP(bufio.NewReaderSize(r, tunnelPeek), &c), c.String(), carriedWhenAsked
	}
	header := "<?xml version='1.0'?><stream:stream to='example.test' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>"
	if req, _, asked := judge(header + "\n"); req || len(asked) > 1 {
		t.Fatalf("control: an XMPP stream header with a line end: request %v, asked for more %q", req, asked)
	}
	if req, _, _ := judge("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"); !req {
		t.Fatal("control: an HTTP request line is not judged a request")
	}
	req, carried, _ := judge("<X / HTTP/1.1", "\r\nHost: other.test\r\n\r\n")
	if !req || strings.Contains(carried, "\n") {
		t.Fatalf("control: '<X / HTTP/1.1' and its line end sent apart: request %v, carried before the verdict %q", req, carried)
	}
	for _, first := range []string{header, "\r\n" + header, "<stream:stream xmlns='jabber:client' to='example.test' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>"} {
		req, _, asked := judge(first)
		if req || len(asked) == 0 || asked[0] != first {
			t.Errorf("an XMPP stream header %q: request %v; carried when the client was asked for bytes it sends only once answered: %q (the tunnel stalls)", first[:30]+"…", req, asked)
		}
	}
}

// partsReader gives one part a Read, and once they are all read calls
// onAsk (a client that waits for the server) and ends.
type partsReader struct {
	parts []string
	onAsk func()
}

func (r *partsReader) Read(p []byte) (int, error) {
	if len(r.parts) > 0 {
		n := copy(p, r.parts[0])
		if r.parts[0] = r.parts[0][n:]; r.parts[0] == "" {
			r.parts = r.parts[1:]
		}
		return n, nil
	}
	r.onAsk()
	return 0, io.EOF
}

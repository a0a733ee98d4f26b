package egress

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// A TLS 1.3 server whose client's key share it cannot use answers the
// ClientHello with a HelloRetryRequest, and the client sends a second
// ClientHello, in the clear like the first. OpenSSL's server reads that
// hello's server name anew (Go's refuses a changed one): a command that
// named the CONNECT host in its first hello and another in its second was
// served as the other, past the check of the first (the forty-third
// review). So the tunnel watches the server's first handshake message and,
// when it is a retry request, checks the client's second hello too
// (retryWatch, secondHello).

// hrrRandom is the random of a HelloRetryRequest (RFC 8446, 4.1.3): the
// SHA-256 of "HelloRetryRequest".
var hrrRandom = []byte{0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
	0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C}

// serverHelloHead is how much of the server's side tells a retry request:
// a record header (5), a handshake header (4), the version (2) and the
// random (32).
const serverHelloHead = 5 + 4 + 2 + 32

// retryWatch reads the server's side of a tunnel through to the client
// unchanged, and tells once, on verdict, whether its first message is a
// HelloRetryRequest: as soon as its first bytes say it is not one, when
// they say it is, or false when the side ends first (done).
type retryWatch struct {
	r       io.Reader
	head    []byte
	verdict chan bool
	once    sync.Once
}

func newRetryWatch(r io.Reader) *retryWatch {
	return &retryWatch{r: r, verdict: make(chan bool, 1)}
}

func (w *retryWatch) tell(v bool) { w.once.Do(func() { w.verdict <- v }) }

// done tells false if nothing was told: the server's side ended.
func (w *retryWatch) done() { w.tell(false) }

func (w *retryWatch) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	if len(w.head) < serverHelloHead {
		w.head = append(w.head, b[:min(n, serverHelloHead-len(w.head))]...)
		h := w.head
		switch {
		case len(h) >= 1 && h[0] != 0x16, len(h) >= 6 && h[5] != 0x02:
			w.tell(false) // not a handshake record, or not a ServerHello
		case len(h) == serverHelloHead:
			w.tell(bytes.Equal(h[11:], hrrRandom))
		}
	}
	return n, err
}

// changeCipherSpec is the record a TLS 1.3 client in middlebox
// compatibility mode sends before its second hello.
var changeCipherSpec = []byte{0x14, 0x03, 0x03, 0x00, 0x01, 0x01}

// secondHello reads the client's ClientHello after a retry request (after
// one change_cipher_spec record, if the client sends it) and returns its
// server name and the bytes it consumed; ok is false when what follows is
// not a readable hello.
func secondHello(br *bufio.Reader) (name string, consumed []byte, ok bool) {
	var pre []byte
	if b, err := br.Peek(len(changeCipherSpec)); err == nil && bytes.Equal(b, changeCipherSpec) {
		pre = append(pre, b...)
		br.Discard(len(changeCipherSpec))
	}
	name, hello, ok := helloName(br)
	if !ok || len(hello) == 0 {
		return "", nil, false
	}
	return name, append(pre, hello...), true
}

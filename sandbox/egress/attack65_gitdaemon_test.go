package egress

import (
	"bufio"
	"bytes"
	"testing"
)

// TestAttack65GitProtocolStallsInTunnel (sixty-fifth review, low, a false
// deny: the tunnel hangs): the git protocol (git://, port 9418), tunnelled
// through CONNECT (core.gitProxy / GIT_PROXY_COMMAND with `nc -X connect`
// or socat, the way git reaches git:// through an HTTP proxy), opens with
// one pkt-line and then waits for the server's ref advertisement:
// "0033git-upload-pack /project.git\x00host=example.test\x00" — no line
// end. plainHTTP (tunnelhttp.go) reads "0033git-upload-pack" as a method
// token (digits, letters and '-' are tchars), the space as its blank, and
// then waits for the line's '\n' to judge the version; the client never
// sends one before it is answered, so nothing reaches the daemon and the
// clone hangs until a timeout ends it. The same holds for any protocol
// whose client speaks first with "word SP ..." and no newline. (Not new
// in this session: the wait on a token and a space predates it.)
//
// Fix: judge a request line only while what is read is possible as one:
// stop waiting (carry the bytes) at a byte no request line holds before
// its end (a NUL or another control byte other than HT/CR; a request
// target holds none), and at a method that begins with a digit-led token
// longer than any method a server knows — e.g. in requestLine, return
// (false, false) on a control byte in b[j:] before the '\n'.
//
// Control: an SSH banner is judged at once (no read past what the client
// sent); an HTTP request line is still judged a request. Attack: the git
// pkt-line must be judged from what the client sent; today plainHTTP asks
// for more.
func TestAttack65GitProtocolStallsInTunnel(t *testing.T) {
	// Asked for more only once all the client sent is carried: it then
	// reaches the address, which answers (the hundred-and-seventh
	// review's fix carries a line of no word of letters as it comes).
	judge := func(first string) (request, asked bool) {
		var c bytes.Buffer
		r := &partsReader{parts: []string{first}, onAsk: func() { asked = asked || c.String() != first }}
		return plainHTTP(bufio.NewReaderSize(r, tunnelPeek), &c), asked
	}
	if req, asked := judge("SSH-2.0-OpenSSH_9.6\r\n"); req || asked {
		t.Fatalf("control: an SSH banner: request %v, asked for more %v", req, asked)
	}
	if req, _ := judge("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n"); !req {
		t.Fatal("control: an HTTP request line is not judged a request")
	}
	pkt := "0033git-upload-pack /project.git\x00host=example.test\x00"
	if req, asked := judge(pkt); req || asked {
		t.Errorf("the git protocol's first pkt-line %q: request %v, asked for bytes the client sends only once answered %v (the tunnel stalls)", pkt, req, asked)
	}
}

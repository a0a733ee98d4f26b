package egress

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
)

// TestAttack65MemcachedKeyWithSlashRefused (sixty-fifth review, low, a
// false deny new in ffb4a3b): memcached's text protocol, tunnelled
// through CONNECT (a cache on the LAN the profile allows), opens with the
// client's command: `get user/42\r\n`, `delete session/17\r\n` — keys
// are any printable bytes, and "prefix/id" keys are common. requestLine
// (tunnelhttp.go) reads a token ("get"), a blank, and a line, and with
// one field after the method judges that field as a version:
// versionShaped("user/42") is true since the sixtieth fix accepts any
// letters before the '/' and a missing ".minor". The tunnel is refused
// ("the tunnel carries a plain HTTP request") and the cache is
// unreachable for such keys. (A client that keeps its connection open, as
// every memcached client does, is not even refused: upgradeRequest waits
// for a header block's "\r\n\r\n" the client never sends, and the
// command stalls until someone's timeout; the test half-closes so that
// the outcome does not rest on a timeout.) One field after the method is a request
// target (HTTP/0.9's form, which the code refuses for GET only), never a
// version: no HTTP parser reads a version there.
//
// Fix: in requestLine judge the last field as a version only when there
// are at least two fields after the method (target and version); keep
// the HTTP/0.9 rule for "GET uri".
//
// Control: `get user42` is carried and answered. Attack: `get user/42`
// must be carried too; today the tunnel is closed.
func TestAttack65MemcachedKeyWithSlashRefused(t *testing.T) {
	ln := acceptEach(t, "tcp4", "127.0.0.1:0", func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			f := strings.Fields(line)
			if len(f) == 2 && f[0] == "get" {
				io.WriteString(c, "VALUE "+f[1]+" 0 2\r\nhi\r\nEND\r\n")
				continue
			}
			io.WriteString(c, "ERROR\r\n")
		}
	})
	target := ingressTarget("cache.example.test", ln)
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("cache.example.test"))
	get := func(key string) (line string) {
		if err := inTunnel(t, addr, auth, target, "get "+key+"\r\n", func(c net.Conn, br *bufio.Reader) {
			// The client is done sending: the proxy's look at the first
			// bytes ends on the EOF instead of waiting for more (see above).
			c.(*net.TCPConn).CloseWrite()
			line, _ = br.ReadString('\n')
		}); err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		return line
	}
	if got := get("user42"); got != "VALUE user42 0 2\r\n" {
		t.Fatalf("control: `get user42` through the tunnel was answered %q", got)
	}
	if got := get("user/42"); got != "VALUE user/42 0 2\r\n" {
		t.Errorf("`get user/42` (memcached) through the tunnel was answered %q: the tunnel was refused as a plain HTTP request", got)
	}
}

package egress

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// The hundred-and-forty-fifth review: a plain (absolute-form) request's
// answer is read by forward with http.ReadResponse straight off the
// upstream connection (proxy.go readFinalResponse): the status line and
// the header block (and each of up to sixteen 1xx answers before it) are
// read whole into memory, with no bound (textproto's ReadMIMEHeader
// takes math.MaxInt64), and none of it is counted: down64 counts the body
// alone (narrowedWriter). The proxy bounds the header block a command
// sends (--max-header-bytes, 431) and counts every byte of it since the
// fifty-sixth review; the block an upstream sends back is neither bounded
// nor counted.
//
// So an upstream the agent serves on an allowed origin (a "*" allow-list,
// a granted origin) (1) carries any amount of data down to the command in
// headers, recorded in egress.traffic as bytes_down 2; and (2) makes the
// server hold the whole block in memory per connection (a 64 MiB header
// line costs the proxy well over 64 MiB of allocation, times the 1,024
// connections one principal's commands may hold at once: the server's
// memory, every turn's service).

// rawUpstream serves every connection with the bytes of answer, after
// reading the request's head.
func rawUpstream(t *testing.T, answer []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				c.Write(answer)
			}(c)
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func attack145Proxy(t *testing.T) (*Proxy, string, chan string, *snapJudge) {
	res := &mapResolver{m: map[string][]netip.Addr{"up.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	for _, id := range []string{"t-hdr", "t-body", "t-big", "t-bigbody"} {
		j.set(id, domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	}
	p := NewProxy(j, res)
	p.FlushEvery = time.Hour // flushed by hand
	done := make(chan string, 16)
	p.accounted = func(turnID string) { done <- turnID }
	return p, startProxy(t, p), done, j
}

func attack145Down(p *Proxy, j *snapJudge, turnID string) int64 {
	p.Flush(turnID)
	j.mu.Lock()
	defer j.mu.Unlock()
	var sum turn.EgressTraffic
	for _, tr := range j.recorded[turnID] {
		sum.BytesDown += tr.BytesDown
	}
	return sum.BytesDown
}

// TestAttack145_PlainResponseHeadersNotCounted: 60,000 bytes carried down
// in an answer's headers (within the header bound: a larger block is
// refused, TestAttack145_PlainResponseHeaderBlockUnbounded) were summarised
// as the 2 bytes of its body. Control: the same bytes in the body are
// counted.
func TestAttack145_PlainResponseHeadersNotCounted(t *testing.T) {
	const n = 15
	val := strings.Repeat("d", 4000)
	var hdr strings.Builder
	hdr.WriteString("HTTP/1.1 200 OK\r\n")
	for i := range n {
		fmt.Fprintf(&hdr, "X-D-%d: %s\r\n", i, val)
	}
	hdr.WriteString("Content-Length: 2\r\nConnection: close\r\n\r\nok")
	hdrPort := rawUpstream(t, []byte(hdr.String()))
	body := strings.Repeat("d", n*4000)
	bodyPort := rawUpstream(t, []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)))

	p, addr, done, j := attack145Proxy(t)
	get := func(turnID, port string) *http.Response {
		u, _ := url.Parse(p.ProxyURL(addr, turnID))
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true, MaxResponseHeaderBytes: 64 << 20}, Timeout: 30 * time.Second}
		resp, err := c.Get("http://up.example.test:" + port + "/")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: GET through the proxy: %v %v", turnID, err, resp)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		<-done
		return resp
	}

	t.Run("control", func(t *testing.T) {
		// The same bytes as a body are counted down.
		get("t-body", bodyPort)
		if d := attack145Down(p, j, "t-body"); d < int64(len(body)) {
			t.Fatalf("control: a %d-byte body was summarised as %d bytes down", len(body), d)
		}
	})
	t.Run("attack", func(t *testing.T) {
		// The bytes in headers reach the command...
		resp := get("t-hdr", hdrPort)
		if got := resp.Header.Get(fmt.Sprintf("X-D-%d", n-1)); got != val {
			t.Fatalf("setup: the headers did not reach the client (%d bytes)", len(got))
		}
		// ...and the record says almost nothing came down.
		if d := attack145Down(p, j, "t-hdr"); d < int64(n*len(val)) {
			t.Errorf("an answer carrying %d bytes in its headers was summarised as %d bytes down: the header block an upstream sends is not counted", n*len(val), d)
		}
	})
}

// attack145Exchange sends one plain GET for turnID through the proxy on a
// raw connection and reads the whole answer into io.Discard; it returns
// the bytes the test process allocated meanwhile (the proxy, the upstream
// writing a prebuilt buffer, and this reader with a fixed buffer).
func attack145Exchange(t *testing.T, p *Proxy, addr, turnID, port string) (alloc uint64, read int64) {
	t.Helper()
	auth := base64.StdEncoding.EncodeToString([]byte(turnID + ":" + p.Credential(turnID)))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://up.example.test:%s/ HTTP/1.1\r\nHost: up.example.test:%s\r\nProxy-Authorization: Basic %s\r\nConnection: close\r\n\r\n", port, port, auth)
	buf := make([]byte, 32<<10)
	for {
		k, err := c.Read(buf)
		read += int64(k)
		if err != nil {
			break
		}
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, read
}

// TestAttack145_PlainResponseHeaderBlockUnbounded: an upstream's 64 MiB
// header line is read whole into the server's memory (and sent on to the
// command). Control: a 64 MiB body is streamed with a small buffer.
func TestAttack145_PlainResponseHeaderBlockUnbounded(t *testing.T) {
	const big = 64 << 20
	const bound = 16 << 20 // a quarter of what passes; the proxy's own header bound is 64 KiB
	line := strings.Repeat("a", big)
	bigHdr := rawUpstream(t, []byte("HTTP/1.1 200 OK\r\nX-Big: "+line+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	bigBody := rawUpstream(t, []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", big, line)))
	// The status line's reason phrase is read whole too (textproto
	// ReadLine), before any header: a bound on the header fields alone
	// would leave it.
	bigStatus := rawUpstream(t, []byte("HTTP/1.1 200 "+line+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	p, addr, _, _ := attack145Proxy(t)

	t.Run("control", func(t *testing.T) {
		// A 64 MiB body passes without the proxy holding it.
		alloc, read := attack145Exchange(t, p, addr, "t-bigbody", bigBody)
		t.Logf("a 64 MiB body: %d MiB allocated, %d MiB passed to the client", alloc>>20, read>>20)
		if read < big {
			t.Fatalf("control: the 64 MiB body did not pass (%d bytes read)", read)
		}
		if alloc > bound {
			t.Fatalf("control: carrying a 64 MiB body allocated %d MiB", alloc>>20)
		}
	})
	t.Run("attack", func(t *testing.T) {
		// A 64 MiB header line.
		alloc, read := attack145Exchange(t, p, addr, "t-big", bigHdr)
		t.Logf("a 64 MiB upstream header line: %d MiB allocated, %d MiB passed to the client", alloc>>20, read>>20)
		if alloc > bound {
			t.Errorf("the proxy allocated %d MiB to carry one answer whose header line is 64 MiB (a body of the same size: under %d MiB): the upstream's header block is read whole into the server's memory, unbounded", alloc>>20, bound>>20)
		}
	})
	t.Run("attack_status_line", func(t *testing.T) {
		// A 64 MiB reason phrase.
		alloc, read := attack145Exchange(t, p, addr, "t-big", bigStatus)
		t.Logf("a 64 MiB upstream status line: %d MiB allocated, %d bytes passed to the client", alloc>>20, read)
		if alloc > bound {
			t.Errorf("the proxy allocated %d MiB to read one answer whose status line is 64 MiB (a body of the same size: under %d MiB): the upstream's status line is read whole into the server's memory, unbounded", alloc>>20, bound>>20)
		}
	})
}

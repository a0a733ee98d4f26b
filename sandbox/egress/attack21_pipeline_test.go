package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack21PipelinedRequestsAreEachJudged (holds): a command writes,
// in one segment on one keep-alive connection to its proxy, a plain GET
// to an allowed host followed by a GET to a host the policy does not
// allow, then a CONNECT to an allowed host followed by bytes for the
// tunnel; and a GET whose body is itself a request to another host. Each
// pipelined request is judged on its own (the second GET is refused), the
// upstream connection carries exactly one request (Connection: close; a
// body stays a body), and bytes pipelined after a CONNECT go into that
// tunnel only. Control: the allowed requests are answered by the allowed
// upstream.
func TestAttack21PipelinedRequestsAreEachJudged(t *testing.T) {
	var mu sync.Mutex
	var perConn []int
	ended := make(chan struct{}, 16) // an upstream connection ended
	upLn, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { upLn.Close() })
	go func() {
		for {
			c, err := upLn.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				n := 0
				for {
					c.SetReadDeadline(time.Now().Add(2 * time.Second))
					req, err := http.ReadRequest(br)
					if err != nil {
						break
					}
					io.Copy(io.Discard, req.Body)
					n++
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nupstream")
				}
				mu.Lock()
				perConn = append(perConn, n)
				mu.Unlock()
				ended <- struct{}{}
			}()
		}
	}()
	port := strconv.Itoa(upLn.Addr().(*net.TCPAddr).Port)
	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	srv := &http.Server{Handler: p.TurnHandler("t"), ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(15 * time.Second))
	smuggled := "GET http://127.0.0.1:" + port + "/inner HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n"
	io.WriteString(c, "GET http://ok.example.test:"+port+"/a HTTP/1.1\r\nHost: ok.example.test:"+port+"\r\n\r\n"+
		"GET http://127.0.0.1:"+port+"/b HTTP/1.1\r\nHost: ok.example.test:"+port+"\r\n\r\n"+
		"POST http://ok.example.test:"+port+"/c HTTP/1.1\r\nHost: ok.example.test:"+port+"\r\nContent-Length: "+strconv.Itoa(len(smuggled))+"\r\n\r\n"+smuggled+
		"CONNECT ok.example.test:"+port+" HTTP/1.1\r\nHost: ok.example.test:"+port+"\r\n\r\n"+
		"GET /in-tunnel HTTP/1.1\r\nHost: ok.example.test\r\nConnection: close\r\n\r\n")
	br := bufio.NewReader(c)
	var codes []int
	for i := range 5 {
		resp, err := http.ReadResponse(br, &http.Request{Method: map[bool]string{true: http.MethodConnect, false: http.MethodGet}[i == 3]})
		if i == 4 {
			// The bytes after the CONNECT are a plain request: the
			// tunnel is closed, unread by the upstream (tunnelhttp.go).
			if err == nil {
				t.Errorf("a plain request pipelined into the tunnel was answered %d", resp.StatusCode)
			}
			break
		}
		if err != nil {
			t.Fatalf("answer %d: %v (so far %v)", i, err, codes)
		}
		if i != 3 {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(b) != "upstream" {
				t.Fatalf("answer %d: %q", i, b)
			}
		}
		codes = append(codes, resp.StatusCode)
	}
	want := []int{200, 403, 200, 200}
	for i := range want {
		if codes[i] != want[i] {
			t.Errorf("pipelined answers %v, want %v (the request to 127.0.0.1 refused: the allow-list names ok.example.test)", codes, want)
			break
		}
	}
	c.Close()
	// The proxy closes each upstream connection when its request or its
	// tunnel ends: a, c and the tunnel's (closed unused).
	for range 3 {
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Fatal("the upstream connections did not end")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(perConn, 0) {
		perConn = slices.DeleteFunc(slices.Clone(perConn), func(n int) bool { return n == 0 }) // the tunnel's, closed unused
	}
	for _, n := range perConn {
		if n != 1 {
			t.Errorf("an upstream connection carried %d requests (all: %v), want one each: a body or pipelined request reached it as a request", n, perConn)
		}
	}
	if len(perConn) != 2 {
		t.Errorf("%d upstream connections that carried a request (%v), want 2 (a and c; the tunnel carried none)", len(perConn), perConn)
	}
}

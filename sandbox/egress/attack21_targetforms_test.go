package egress

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack21TargetFormsThroughTheProxy (holds): a restricted turn allows
// only **.example.test, and localhost (so that an allowed name resolving
// to 127.0.0.1 reaches the test's upstream). Raw requests to the proxy
// name the same loopback upstream in the forms a resolver or a URL parser
// reads as 127.0.0.1 (IPv4-mapped and IPv4-compatible IPv6, NAT64,
// decimal, hex, octal, short, trailing dot, upper case), an absolute URL
// whose user info names the allowed host, a CONNECT whose Host header
// names the allowed host and whose authority does not, and a plain request
// whose Host header names another host than its target. Each literal is
// refused (the name is what the allow-list is matched on), and the
// upstream only ever sees the allowed name in its Host header. Control:
// the allowed name reaches the upstream, by CONNECT and by plain GET.
func TestAttack21TargetFormsThroughTheProxy(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		io.WriteString(w, "upstream")
	})}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("t:"+p.Credential("t"))) + "\r\n"
	send := func(raw string) (int, string, string) {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, raw)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return 0, "", err.Error()
		}
		if resp.StatusCode == http.StatusOK && strings.HasPrefix(raw, "CONNECT") {
			// Another protocol than HTTP (a plain request in a tunnel is
			// refused: tunnelhttp.go); the upstream answers it 400.
			io.WriteString(c, "SSH-2.0-probe\r\n\r\n")
			if _, err := http.ReadResponse(br, nil); err != nil {
				return resp.StatusCode, "", "inner: " + err.Error()
			}
			return resp.StatusCode, resp.Header.Get(HeaderRefusal), "upstream"
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get(HeaderRefusal), string(b)
	}

	// Control: the allowed name, both ways.
	if code, _, body := send("GET http://ok.example.test:" + port + "/ HTTP/1.1\r\nHost: ok.example.test:" + port + "\r\n" + auth + "Connection: close\r\n\r\n"); code != 200 || body != "upstream" {
		t.Fatalf("control: GET of the allowed name: %d %q", code, body)
	}
	if code, _, body := send("CONNECT ok.example.test:" + port + " HTTP/1.1\r\nHost: ok.example.test:" + port + "\r\n" + auth + "\r\n"); code != 200 || body != "upstream" {
		t.Fatalf("control: CONNECT to the allowed name: %d %q", code, body)
	}

	for _, h := range []string{"[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "[::127.0.0.1]", "[64:ff9b::7f00:1]",
		"2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1", "127.1", "127.0.0.1.", "0", "0.0.0.0", "[::]", "[::1]", "LOCALHOST", "localhost.", "x.localhost"} {
		for _, raw := range []string{
			"GET http://" + h + ":" + port + "/ HTTP/1.1\r\nHost: ok.example.test:" + port + "\r\n" + auth + "Connection: close\r\n\r\n",
			"CONNECT " + h + ":" + port + " HTTP/1.1\r\nHost: ok.example.test:" + port + "\r\n" + auth + "\r\n",
		} {
			if code, why, body := send(raw); code == 200 || body == "upstream" {
				t.Errorf("%q reached the loopback upstream: %d %q %q", strings.SplitN(raw, "\r\n", 2)[0], code, why, body)
			}
		}
	}
	for _, raw := range []string{
		"GET http://ok.example.test@127.0.0.1:" + port + "/ HTTP/1.1\r\nHost: ok.example.test:" + port + "\r\n" + auth + "Connection: close\r\n\r\n",
		"GET http://127.0.0.1:" + port + "/ HTTP/1.1\r\nHost: ok.example.test:" + port + "\r\n" + auth + "Connection: close\r\n\r\n",
		"GET /  HTTP/1.1\r\nHost: ok.example.test:" + port + "\r\n" + auth + "Connection: close\r\n\r\n",
		"CONNECT /x HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + auth + "\r\n",
	} {
		if code, why, body := send(raw); code == 200 || body == "upstream" {
			t.Errorf("%q reached the loopback upstream: %d %q %q", strings.SplitN(raw, "\r\n", 2)[0], code, why, body)
		}
	}
	// A plain request's Host header never replaces its target's host.
	mu.Lock()
	hosts = nil
	mu.Unlock()
	if code, _, body := send("GET http://ok.example.test:" + port + "/ HTTP/1.1\r\nHost: evil.other:" + strconv.Itoa(1) + "\r\n" + auth + "Connection: close\r\n\r\n"); code != 200 || body != "upstream" {
		t.Fatalf("GET of the allowed name with another Host header: %d %q", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hosts) != 1 || hosts[0] != "ok.example.test:"+port {
		t.Errorf("the upstream saw Host %q, want the target's ok.example.test:%s", hosts, port)
	}
}

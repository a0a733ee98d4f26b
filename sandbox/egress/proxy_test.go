package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/sandbox"
)

// snapJudge is a Judge over one snapshot per turn, held in memory and
// replaced by set (a new version, as a profile change would make): it
// decides as the engine's resource check does (CheckURL, then the method).
type snapJudge struct {
	mu sync.Mutex
	// recorded holds the traffic summaries by turn; decisions counts
	// Decide calls.
	recorded  map[string][]turn.EgressTraffic
	decisions int
	snaps     map[string]*domain.TurnExecutionSecuritySnapshot
	ver       map[string]int64
}

func newSnapJudge() *snapJudge {
	return &snapJudge{snaps: map[string]*domain.TurnExecutionSecuritySnapshot{}, ver: map[string]int64{}}
}

func (j *snapJudge) set(turnID string, np domain.NetworkPolicy) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.snaps[turnID] = netSnapshot(np)
	j.ver[turnID]++
}

func (j *snapJudge) Snapshot(_ context.Context, turnID string) (*domain.TurnExecutionSecuritySnapshot, int64, error) {
	j.mu.Lock()
	s, v := j.snaps[turnID], j.ver[turnID]
	j.mu.Unlock()
	if s == nil {
		return nil, 0, &sandbox.Refusal{Code: sandbox.CodeNoSnapshot, Message: "no such turn"}
	}
	return s, v, nil
}

func (j *snapJudge) Record(_ context.Context, turnID, _ string, t turn.EgressTraffic) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.recorded == nil {
		j.recorded = map[string][]turn.EgressTraffic{}
	}
	j.recorded[turnID] = append(j.recorded[turnID], t)
	return nil
}

func (j *snapJudge) Decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error) {
	j.mu.Lock()
	j.decisions++
	j.mu.Unlock()
	s, _, err := j.Snapshot(ctx, turnID)
	if err != nil {
		return Verdict{}, err
	}
	if err := sandbox.CheckURL(s, rawURL); err != nil {
		return verdictOf(err), nil
	}
	if !s.Network.MethodAllowed(method) {
		return Verdict{Code: "method_not_allowed", Rule: "limited"}, nil
	}
	return Verdict{Allow: true, Code: "policy_allows_action"}, nil
}

// mapResolver answers from a table and counts lookups per name.
type mapResolver struct {
	m     map[string][]netip.Addr
	mu    sync.Mutex
	count map[string]int
}

func (r *mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count == nil {
		r.count = map[string]int{}
	}
	r.count[host]++
	if a, ok := r.m[host]; ok {
		return a, nil
	}
	return nil, sandbox.ErrHostNotFound
}

func (r *mapResolver) lookups(h string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[h]
}

// startProxy serves p's shared handler on 127.0.0.1.
func startProxy(t *testing.T, p *Proxy) string {
	t.Helper()
	srv := httptest.NewServer(p.Handler())
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// proxyClient is an HTTP client using the proxy at proxyURL.
func proxyClient(proxyURL string) *http.Client {
	u, _ := url.Parse(proxyURL)
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}, Timeout: 10 * time.Second}
}

func origin(t *testing.T, body string) (*httptest.Server, string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
	t.Cleanup(srv.Close)
	return srv, srv.Listener.Addr().(*net.TCPAddr).AddrPort().String()
}

func get(t *testing.T, c *http.Client, u string) (int, http.Header, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestProxyAllowDenyRebinding: an allowed origin is fetched through the
// proxy; a name the allow-list names but that resolves to loopback is
// refused (403 naming localhost_not_allowed) unless localhost is allowed;
// a name with one private address among its answers is refused; a denied
// host gets 403 naming its rule. Each connection looks its name up once
// and reaches the address that was checked.
func TestProxyAllowDenyRebinding(t *testing.T) {
	_, hp := origin(t, "hello")
	port := hp[strings.LastIndex(hp, ":")+1:]
	res := &mapResolver{m: map[string][]netip.Addr{
		"rebind.test": {netip.MustParseAddr("127.0.0.1")},
		"mixed.test":  {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.7")},
	}}
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"rebind.test", "mixed.test", "=127.0.0.1"}, DeniedDomains: []string{"bad.test"}}
	j.set("t1", np)
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t1"))

	code, h, _ := get(t, c, "http://rebind.test:"+port+"/")
	if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodeLocalhostNotAllowed {
		t.Fatalf("rebind.test → loopback without allow_localhost: %d %q", code, h.Get(HeaderRefusal))
	}
	code, h, _ = get(t, c, "http://bad.test:"+port+"/")
	if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodeHostDenied || !strings.Contains(h.Get(HeaderRule), "bad.test") {
		t.Fatalf("denied host: %d %q %q", code, h.Get(HeaderRefusal), h.Get(HeaderRule))
	}

	np.AllowLocalhost = true
	j.set("t1", np)
	before := res.lookups("rebind.test")
	code, _, body := get(t, c, "http://rebind.test:"+port+"/")
	if code != http.StatusOK || body != "hello" {
		t.Fatalf("rebind.test with allow_localhost (control): %d %q", code, body)
	}
	if n := res.lookups("rebind.test") - before; n != 1 {
		t.Errorf("%d lookups for one connection, want exactly 1 (resolve once, connect to the checked address)", n)
	}
	code, h, _ = get(t, c, "http://mixed.test:"+port+"/")
	if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
		t.Fatalf("mixed.test (one private answer): %d %q", code, h.Get(HeaderRefusal))
	}
	code, h, _ = get(t, c, "http://127.0.0.1:"+port+"/")
	if code != http.StatusOK {
		t.Fatalf("127.0.0.1 allowed: %d %q", code, h.Get(HeaderRefusal))
	}
}

// TestProxyCredentials: the shared listener asks for credentials; a turn's
// credential does not work for another turn id, nor a made-up one.
func TestProxyCredentials(t *testing.T) {
	_, hp := origin(t, "hi")
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}}
	j.set("a", np)
	j.set("b", domain.NetworkPolicy{Mode: domain.NetworkDisabled})
	p := NewProxy(j, &mapResolver{})
	addr := startProxy(t, p)
	for name, u := range map[string]string{
		"no credential":               "http://" + addr,
		"a's credential as b":         "http://b:" + p.Credential("a") + "@" + addr,
		"made-up credential for a":    "http://a:" + strings.Repeat("0", 64) + "@" + addr,
		"b's credential under a's id": "http://a:" + p.Credential("b") + "@" + addr,
	} {
		if code, _, _ := get(t, proxyClient(u), "http://"+hp+"/"); code != http.StatusProxyAuthRequired {
			t.Errorf("%s: %d, want 407", name, code)
		}
	}
	if code, _, body := get(t, proxyClient(p.ProxyURL(addr, "a")), "http://"+hp+"/"); code != 200 || body != "hi" {
		t.Errorf("a's own credential (control): %d %q", code, body)
	}
	if code, h, _ := get(t, proxyClient(p.ProxyURL(addr, "b")), "http://"+hp+"/"); code != 403 || h.Get(HeaderRefusal) != sandbox.CodeNetworkDisabled {
		t.Errorf("b's own credential is judged under b's snapshot: %d %q", code, h.Get(HeaderRefusal))
	}
}

// echoServer echoes each connection on 127.0.0.1.
func echoServer(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
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
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// dialConnect opens a CONNECT tunnel through the proxy and returns the
// connection and the status line.
func dialConnect(t *testing.T, proxyAddr, turnID, cred, target string) (net.Conn, *bufio.Reader, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}}
	req.SetBasicAuth(turnID, cred)
	req.Header.Set("Proxy-Authorization", req.Header.Get("Authorization"))
	req.Header.Del("Authorization")
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatal(err)
	}
	return c, br, resp.Status + " " + resp.Header.Get(HeaderRefusal)
}

func echoOnce(c net.Conn, br *bufio.Reader, msg string) (string, error) {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, msg+"\n"); err != nil {
		return "", err
	}
	return br.ReadString('\n')
}

// TestProxyLimited: under limited, plain GET passes and POST is refused;
// CONNECT is refused (no TLS interception) while the same CONNECT passes
// on a network that is not limited.
func TestProxyLimited(t *testing.T) {
	_, hp := origin(t, "ok")
	echo := echoServer(t)
	j := newSnapJudge()
	lim := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}, AllowedMethods: []string{"GET", "HEAD", "OPTIONS"}}
	j.set("lim", lim)
	open := lim
	open.AllowedMethods = nil
	j.set("open", open)
	p := NewProxy(j, &mapResolver{})
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "lim"))
	if code, _, body := get(t, c, "http://"+hp+"/"); code != 200 || body != "ok" {
		t.Fatalf("limited GET: %d %q", code, body)
	}
	resp, err := c.Post("http://"+hp+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get(HeaderRefusal) != "method_not_allowed" {
		t.Fatalf("limited POST: %d %q", resp.StatusCode, resp.Header.Get(HeaderRefusal))
	}
	if _, _, st := dialConnect(t, addr, "lim", p.Credential("lim"), echo); !strings.HasPrefix(st, "403") || !strings.Contains(st, "method_not_allowed") {
		t.Fatalf("limited CONNECT: %s", st)
	}
	conn, br, st := dialConnect(t, addr, "open", p.Credential("open"), echo)
	if !strings.HasPrefix(st, "200") {
		t.Fatalf("CONNECT without limited (control): %s", st)
	}
	if got, err := echoOnce(conn, br, "ping"); err != nil || got != "ping\n" {
		t.Fatalf("tunnel echo: %q %v", got, err)
	}
}

// TestProxyNarrowingClosesTunnel: a profile change that keeps the origin
// allowed leaves an open tunnel working; a narrowing that denies it closes
// the tunnel; another turn's tunnel to the same origin stays open.
func TestProxyNarrowingClosesTunnel(t *testing.T) {
	echo := echoServer(t)
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}}
	j.set("t", np)
	j.set("other", np)
	p := NewProxy(j, &mapResolver{})
	p.Recheck = 20 * time.Millisecond
	seen := make(chan int64, 64)
	p.rechecked = func(turnID string, v int64) {
		if turnID == "t" {
			select {
			case seen <- v:
			default:
			}
		}
	}
	addr := startProxy(t, p)
	conn, br, st := dialConnect(t, addr, "t", p.Credential("t"), echo)
	oconn, obr, ost := dialConnect(t, addr, "other", p.Credential("other"), echo)
	if !strings.HasPrefix(st, "200") || !strings.HasPrefix(ost, "200") {
		t.Fatalf("CONNECT: %s / %s", st, ost)
	}
	waitSeen := func(v int64) {
		t.Helper()
		for {
			select {
			case got := <-seen:
				if got >= v {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the watcher never judged version %d", v)
			}
		}
	}
	wider := np
	wider.AllowedDomains = append(wider.AllowedDomains, "example.org")
	j.set("t", wider) // version 2, still allows
	waitSeen(2)
	if got, err := echoOnce(conn, br, "still"); err != nil || got != "still\n" {
		t.Fatalf("after a change that still allows: %q %v", got, err)
	}
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"example.org"}}) // version 3
	waitSeen(3)
	if got, err := echoOnce(conn, br, "gone"); err == nil {
		t.Fatalf("the denied tunnel still echoes %q after the narrowing", got)
	}
	if got, err := echoOnce(oconn, obr, "other"); err != nil || got != "other\n" {
		t.Fatalf("another turn's tunnel: %q %v", got, err)
	}
}

// TestProxyTrafficSummary: allowed connections are summarised per origin
// (one summary for several connections in a window) with the bytes each
// way; a refused connection adds nothing.
func TestProxyTrafficSummary(t *testing.T) {
	_, a := origin(t, strings.Repeat("a", 1000))
	_, b := origin(t, "bb")
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=http://" + a, "=http://" + b}})
	p := NewProxy(j, &mapResolver{})
	p.FlushEvery = time.Hour // flushed by hand below
	done := make(chan string, 8)
	p.accounted = func(turnID string) { done <- turnID }
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))
	for range 3 {
		if code, _, _ := get(t, c, "http://"+a+"/"); code != 200 {
			t.Fatalf("GET a: %d", code)
		}
	}
	if code, _, _ := get(t, c, "http://"+b+"/"); code != 200 {
		t.Fatalf("GET b: %d", code)
	}
	if code, _, _ := get(t, c, "http://10.9.9.9:80/"); code != 403 {
		t.Fatalf("refused: %d", code)
	}
	for range 4 { // the handler accounts after the client has its answer
		<-done
	}
	p.Flush("t")
	j.mu.Lock()
	got := map[string]turn.EgressTraffic{}
	for _, tr := range j.recorded["t"] {
		got[tr.Origin] = tr
	}
	n := len(j.recorded["t"])
	j.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d summaries, want 2 (one per origin): %+v", n, got)
	}
	ta, tb := got["http://"+a], got["http://"+b]
	// A GET sends its request line and headers: counted up; its answer's
	// status line and headers count down with the body (at most a KiB
	// each here).
	line := int64(len("GET / HTTP/1.1\r\n"))
	status := int64(len("HTTP/1.1 200 OK\r\n"))
	if ta.Connections != 3 || ta.BytesDown < 3000+3*status || ta.BytesDown > 3000+3*1024 || ta.BytesUp < 3*line ||
		tb.Connections != 1 || tb.BytesDown < 2+status || tb.BytesDown > 2+1024 || tb.BytesUp < line {
		t.Fatalf("summaries %+v", got)
	}
}

func basic(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}

// TestProxyURLEscapesTheTurnID: a turn id with URL syntax in it stays the
// user name of the proxy URL (and authenticates as itself only).
func TestProxyURLEscapesTheTurnID(t *testing.T) {
	_, hp := origin(t, "ok")
	j := newSnapJudge()
	odd := "a@b/c?d"
	j.set(odd, domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}})
	p := NewProxy(j, &mapResolver{})
	addr := startProxy(t, p)
	u, err := url.Parse(p.ProxyURL(addr, odd))
	if err != nil || u.User.Username() != odd || u.Host != addr {
		t.Fatalf("proxy URL %v %v", u, err)
	}
	if code, _, body := get(t, proxyClient(u.String()), "http://"+hp+"/"); code != 200 || body != "ok" {
		t.Fatalf("through the escaped URL: %d %q", code, body)
	}
}

// TestProxyBatchesDecisionsPerSnapshot: connections to an allowed origin
// under one snapshot are decided once; another origin, another method and
// a new snapshot version are decided anew; a refusal is never reused.
func TestProxyBatchesDecisionsPerSnapshot(t *testing.T) {
	_, a := origin(t, "a")
	_, b := origin(t, "b")
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=http://" + a, "=http://" + b}}
	j.set("t", np)
	p := NewProxy(j, &mapResolver{})
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))
	count := func() int {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.decisions
	}
	for range 3 {
		get(t, c, "http://"+a+"/x?q=1")
	}
	if n := count(); n != 1 {
		t.Fatalf("%d decisions for three connections to one origin, want 1", n)
	}
	get(t, c, "http://"+b+"/")
	if n := count(); n != 2 {
		t.Fatalf("%d decisions after a second origin, want 2", n)
	}
	resp, err := c.Head("http://" + a + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := count(); n != 3 {
		t.Fatalf("%d decisions after another method, want 3", n)
	}
	j.set("t", np) // a new snapshot version
	get(t, c, "http://"+a+"/")
	if n := count(); n != 4 {
		t.Fatalf("%d decisions after a new snapshot, want 4", n)
	}
	for range 2 {
		get(t, c, "http://127.0.0.2:1/")
	}
	if n := count(); n != 6 {
		t.Fatalf("%d decisions after two refused connections, want 6 (refusals are not reused)", n)
	}
}

package egress

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestAttack56PlainRequestLineAndHeadersNotCounted (fifty-sixth review,
// low): the egress.traffic summary is the record of what a turn carried,
// "the bytes each way" (turn.EgressTraffic). A CONNECT tunnel counts every
// byte the command sends (countingWriter on the whole stream), but a plain
// HTTP request counts its body alone: forward wraps out.Body in a
// countingBody and writes the request line and header block with
// out.Write, uncounted (proxy.go forward; track.go countingBody). Under a
// network limited to GET, HEAD and OPTIONS (a profile's "limited", meant
// to keep a command from sending), the request line and the headers are
// the only upload channel left, and every byte of it is recorded as
// bytes_up 0: a command that sends 48 KiB of a secret in a query string
// and a header to an allowed origin leaves a summary saying nothing went
// up.
//
// Control: a body is counted (a POST on an unlimited network). Attack: a
// GET whose query and one header hold 48 KiB must be summarised with at
// least those bytes up.
func TestAttack56PlainRequestLineAndHeadersNotCounted(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	t.Cleanup(up.Close)
	port := up.Listener.Addr().String()
	port = port[strings.LastIndex(port, ":")+1:]
	res := &mapResolver{m: map[string][]netip.Addr{"ok.example.test": {netip.MustParseAddr("127.0.0.1")}, "post.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := newSnapJudge()
	j.set("lim", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true,
		AllowedMethods: []string{"GET", "HEAD", "OPTIONS"}})
	j.set("open", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	p.FlushEvery = time.Hour // flushed by hand below
	done := make(chan string, 8)
	p.accounted = func(turnID string) { done <- turnID }
	addr := startProxy(t, p)

	summary := func(turnID string) turn.EgressTraffic {
		p.Flush(turnID)
		j.mu.Lock()
		defer j.mu.Unlock()
		var sum turn.EgressTraffic
		for _, tr := range j.recorded[turnID] {
			sum.Connections += tr.Connections
			sum.BytesUp += tr.BytesUp
			sum.BytesDown += tr.BytesDown
		}
		return sum
	}

	// Control: a POST body is counted.
	body := strings.Repeat("b", 4096)
	c := proxyClient(p.ProxyURL(addr, "open"))
	resp, err := c.Post("http://post.example.test:"+port+"/", "text/plain", strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("control: POST through the proxy: %v %v", err, resp)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	<-done
	if s := summary("open"); s.BytesUp < int64(len(body)) {
		t.Fatalf("control: the POST's %d body bytes were summarised as %d bytes up", len(body), s.BytesUp)
	}

	// Attack: under limited, a GET carries 48 KiB in its query and a header.
	secret := strings.Repeat("s", 24<<10)
	req, _ := http.NewRequest("GET", "http://ok.example.test:"+port+"/?d="+secret, nil)
	req.Header.Set("X-Data", secret)
	c = proxyClient(p.ProxyURL(addr, "lim"))
	resp, err = c.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET under limited through the proxy: %v %v", err, resp)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	<-done
	if s := summary("lim"); s.BytesUp < int64(2*len(secret)) {
		t.Errorf("a GET that sent %d bytes in its query and headers was summarised as %d bytes up (%d connections): the record says nothing went up",
			2*len(secret), s.BytesUp, s.Connections)
	}
}

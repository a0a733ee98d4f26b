package tests

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TestAttack7PageGrantOpensTheOrigin (fixed: the proxy decides web_fetch
// with scope origin, a scope of its own that names no path): the egress
// proxy judged each plain
// HTTP request as a web_fetch decision of {"url": ORIGIN+"/", "method": M},
// which is, byte for byte, the runtime's own web_fetch of the origin's root
// page. So the two share one scope hash, and one allow_for_turn grant. A
// person who allows "GET http://host:port/" for the turn — a web_fetch of
// one URL, which the request says covers "every later web_fetch call with
// the same … URL" — has also allowed every GET, any path, any query, that
// the turn's commands (or the runtime's proxied tools) send to that origin,
// without another question: the page grant is an origin grant.
//
// Control: the runtime's own web_fetch of another URL on the origin still
// asks.
func TestAttack7PageGrantOpensTheOrigin(t *testing.T) {
	t.Parallel()
	s, root := egressServer(t)
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI())
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	origin := srv.Listener.Addr().String()
	if st, body := startProfileTurn(s, "pg", root, map[string]any{"profile": "askweb"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	// The runtime fetches the home page; a person allows it for the turn.
	page := s.decide("pg", "page", "web_fetch", map[string]any{"url": "http://" + origin + "/"})
	if page.Request == nil {
		t.Fatalf("askweb web_fetch asks: %+v", page)
	}
	s.respond(page.Request.RequestID, "allow_for_turn")
	// Control: another URL of the origin is another scope: it asks.
	if d := s.decide("pg", "other", "web_fetch", map[string]any{"url": "http://" + origin + "/exfil?d=a7secret"}); d.Decision != "ask" {
		t.Fatalf("control: the runtime's fetch of another URL: %+v", d)
	}

	var eg struct {
		ProxyURL string `json:"proxy_url"`
	}
	s.JSON("GET", "/v1/turns/pg/egress", nil, http.StatusOK, &eg)
	pu, err := url.Parse(eg.ProxyURL)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + origin + "/exfil?d=a7secret")
	if err != nil {
		// Held for a person (the client gave up): the origin's own question.
		var pending struct{ Approvals []approvalView }
		s.JSON("GET", "/v1/approvals?status=pending&turn_id=pg", nil, http.StatusOK, &pending)
		for _, a := range pending.Approvals {
			if a.Request.Summary == "Any GET request to http://"+origin+" (every path)" {
				return
			}
		}
		t.Fatalf("the proxied GET failed without asking about the origin: %v (pending: %+v)", err, pending.Approvals)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("allow_for_turn of the page GET http://%s/ let a proxied GET of /exfil?d=a7secret through without asking (the origin saw %q)", origin, seen)
	}
}

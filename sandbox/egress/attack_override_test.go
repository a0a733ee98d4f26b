package egress

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttackLimitedMethodOverride: limited allows GET/HEAD/OPTIONS only,
// judged on the request line's method (proxy.go, serve → decide; forward
// passes every other header on). Many servers and frameworks honour
// X-HTTP-Method-Override / X-HTTP-Method / X-Method-Override (and a
// _method parameter), so a GET that carries one is a POST/DELETE to them;
// the proxy forwards it untouched, with its body. Wanted: the proxy refuses
// (method_not_allowed) or strips the override headers under limited.
// Control: a plain POST is refused, and a plain GET passes.
func TestAttackLimitedMethodOverride(t *testing.T) {
	type seen struct{ method, override, body string }
	got := make(chan seen, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		m := r.Method
		for _, h := range []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"} {
			if o := r.Header.Get(h); o != "" {
				m = strings.ToUpper(o) // what a method-override middleware does
			}
		}
		got <- seen{r.Method, m, string(b)}
		io.WriteString(w, "done:"+m)
	}))
	t.Cleanup(srv.Close)
	hp := strings.TrimPrefix(srv.URL, "http://")
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"},
		AllowedMethods: []string{"GET", "HEAD", "OPTIONS"}})
	p := NewProxy(j, &mapResolver{})
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))

	// Controls.
	resp, err := c.Post("http://"+hp+"/delete-everything", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("limited POST (control): %d, want 403", resp.StatusCode)
	}
	if code, _, body := get(t, c, "http://"+hp+"/"); code != 200 || body != "done:GET" {
		t.Fatalf("limited GET (control): %d %q", code, body)
	}
	<-got

	for _, h := range []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"} {
		req, _ := http.NewRequest("GET", "http://"+hp+"/delete-everything", strings.NewReader("payload"))
		req.Header.Set(h, "DELETE")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			s := <-got
			if s.override != "GET" {
				t.Errorf("limited: GET with %s: DELETE reached the origin as %s (body %q, answer %q); want 403 method_not_allowed or the header stripped", h, s.override, s.body, b)
			}
		}
	}
}

package egress

import (
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack2OverrideHeaderUnderscore: under limited, serve refuses a
// request whose X-HTTP-Method-Override / X-HTTP-Method / X-Method-Override
// names a method the network does not allow (proxy.go, overrideHeaders),
// looking the headers up by their canonical names only. CGI, and every
// gateway built on its variables (PHP, WSGI, Rack: HTTP_X_HTTP_METHOD_OVERRIDE),
// maps "-" and "_" in a header name to the same "_", so
// X_HTTP_Method_Override: DELETE reaches the application as the very
// override the proxy refuses under its hyphenated name. The origin here is
// Go's own net/http/cgi host running a script that honours the override as
// such middlewares do. Wanted: 403 method_not_allowed (or the header
// stripped), as for the hyphenated name. Controls: the hyphenated name is
// refused; a plain GET passes and reaches the script as GET.
func TestAttack2OverrideHeaderUnderscore(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "app.cgi")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nm=${HTTP_X_HTTP_METHOD_OVERRIDE:-$REQUEST_METHOD}\nprintf 'Content-Type: text/plain\\r\\n\\r\\n%s' \"$m\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&cgi.Handler{Path: script, Dir: dir})
	t.Cleanup(srv.Close)
	hp := strings.TrimPrefix(srv.URL, "http://")

	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"},
		AllowedMethods: []string{"GET", "HEAD", "OPTIONS"}})
	p := NewProxy(j, &mapResolver{})
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))

	do := func(h string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+hp+"/records/1", nil)
		if h != "" {
			req.Header[h] = []string{"DELETE"} // as written, not canonicalized
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := do(""); code != 200 || body != "GET" {
		t.Fatalf("limited GET (control): %d %q", code, body)
	}
	if code, _ := do("X-HTTP-Method-Override"); code != http.StatusForbidden {
		t.Fatalf("limited GET with X-HTTP-Method-Override: DELETE (control): %d, want 403", code)
	}
	for _, h := range []string{"X_HTTP_Method_Override", "X-HTTP_Method-Override"} {
		if code, body := do(h); code == 200 && body == "DELETE" {
			t.Errorf("limited: GET with %s: DELETE was forwarded and the application saw DELETE (HTTP_X_HTTP_METHOD_OVERRIDE); want 403 method_not_allowed", h)
		}
	}
}

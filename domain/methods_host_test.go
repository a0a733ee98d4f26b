package domain

import (
	"encoding/json"
	"net/url"
	"testing"
)

// TestHostMismatch: a Host or :authority header naming another host or
// port than the URL is found, in the object and the list forms of a
// tool's headers argument; the URL's own host (any case, a trailing dot,
// its default port) is not a mismatch.
func TestHostMismatch(t *testing.T) {
	u, _ := url.Parse("https://api.example.com/v1")
	v6, _ := url.Parse("http://[::1]:8080/")
	for _, c := range []struct {
		u       *url.URL
		headers any
		want    string
	}{
		{u, map[string]any{"Host": "evil.example"}, "evil.example"},
		{u, map[string]any{"host": "api.example.com:444"}, "api.example.com:444"},
		{u, map[string]any{":authority": "evil.example"}, "evil.example"},
		{u, []string{"Host: evil.example"}, "evil.example"},
		{u, []string{":authority: evil.example"}, "evil.example"},
		{u, map[string]any{"Host": []string{"api.example.com", "evil.example"}}, "evil.example"},
		{u, map[string]any{"Host": "API.Example.com."}, ""},
		{u, map[string]any{"Host": "api.example.com:443"}, ""},
		{u, map[string]any{"Accept": "evil.example"}, ""},
		{v6, map[string]any{"Host": "[::1]:8080"}, ""},
		{v6, map[string]any{"Host": "[::1]"}, ""},
	} {
		raw, _ := json.Marshal(map[string]any{"headers": c.headers})
		if got := HostMismatch(ArgumentHeaders(raw), c.u); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.u, c.headers, got, c.want)
		}
	}
}

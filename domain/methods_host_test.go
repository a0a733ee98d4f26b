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
		{u, [][]string{{"Host", "evil.example"}}, "evil.example"},
		{u, [][]string{{"Accept", "*/*"}, {"Host", "api.example.com"}}, ""},
		{u, "Accept: */*\r\nHost: evil.example\r\n", "evil.example"},
		{u, "Host: api.example.com", ""},
	} {
		raw, _ := json.Marshal(map[string]any{"headers": c.headers})
		h := ArgumentHeaders(raw)
		if got := HostMismatch(h, c.u); got != c.want || UnreadableHeaders(h) {
			t.Errorf("%s %v: %q (unreadable %v), want %q", c.u, c.headers, got, UnreadableHeaders(h), c.want)
		}
	}
	for _, odd := range []any{42, []any{[]string{"a", "b", "c"}}, []any{map[string]string{"Host": "x"}}, true} {
		raw, _ := json.Marshal(map[string]any{"headers": odd})
		if !UnreadableHeaders(ArgumentHeaders(raw)) {
			t.Errorf("headers %v: read as headers", odd)
		}
	}
	if raw, _ := json.Marshal(map[string]any{"headers": nil}); UnreadableHeaders(ArgumentHeaders(raw)) {
		t.Error("a null headers argument is unreadable")
	}
}

package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack98_FetchPathShownAsParsed (low): Claude Code's WebFetch parses
// its URL with the WHATWG URL parser (new URL), which, for an http(s) URL,
// reads a backslash in the path as a '/' and removes the dot segments it
// makes; turnstile parses it with Go's net/url, which keeps the
// backslashes as part of one segment (and shows them as %5C). The person approving is shown (summary and URL
// detail) a path under /docs, and Claude Code fetches /admin/...:
//
//	shown   GET https://api.example/docs%5C..%5C..%5Cadmin%5Cusers%5Cdelete?id=7
//	fetched GET https://api.example/admin/users/delete?id=7
//
// and an allow_for_turn grant of the shown path covers the fetched one
// (the scope's url_path and url_full_hash are of the Go string).
// Wanted: what is shown (and bound) is the path Claude Code fetches, or
// such a URL is refused. Control: a URL without backslashes is shown with
// the path fetched.
func TestAttack98_FetchPathShownAsParsed(t *testing.T) {
	shown := func(u string) string {
		t.Helper()
		inv, err := ClaudeCodeInvocation("WebFetch", json.RawMessage(`{"url":`+a98JSON(u)+`,"prompt":"summarise"}`), "/w")
		if err != nil {
			return "refused: " + err.Error()
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			return "refused: " + err.Error()
		}
		return a.Redacted().Summary
	}
	if s := shown("https://api.example/admin/users/delete?id=7"); !strings.Contains(s, "/admin/users/delete") {
		t.Fatalf("control: the path fetched is not shown: %s", s)
	}
	for _, u := range []string{
		`https://api.example/docs\..\..\admin\users\delete?id=7`,
	} {
		// WHATWG's reading of u (what Claude Code fetches):
		// https://api.example/admin/users/delete?id=7.
		if s := shown(u); !strings.HasPrefix(s, "refused") && !strings.Contains(s, "/admin/users/delete") {
			t.Errorf("WebFetch %s fetches https://api.example/admin/users/delete?id=7 and is shown as %q", u, s)
		}
	}
}

func a98JSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestWebFetchDotSegmentsRefused: a path with "." or ".." segments
// (%2e spelled too), which Claude Code's parser removes before it
// fetches, is refused; a dot inside a segment (a file's extension, a
// version) is not (controls).
func TestWebFetchDotSegmentsRefused(t *testing.T) {
	for _, c := range []struct {
		u      string
		refuse bool
	}{
		{"https://api.example/docs/../admin", true},
		{"https://api.example/docs/%2E%2e/admin?x=1", true},
		{"https://api.example/./admin", true},
		{"https://api.example/docs/v1.2/a..b/file.txt?q=../x#..", false},
		{"https://api.example", false},
	} {
		_, err := ClaudeCodeInvocation("WebFetch", json.RawMessage(`{"url":`+a98JSON(c.u)+`,"prompt":"p"}`), "/w")
		if (err != nil) != c.refuse {
			t.Errorf("%s: error %v, want refused %v", c.u, err, c.refuse)
		}
	}
}

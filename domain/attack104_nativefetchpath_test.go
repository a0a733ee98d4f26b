package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack104_NativeFetchPathShownAsParsed (low): the ninety-eighth
// review's fix (a WebFetch URL with a backslash or a dot segment is
// refused: the WHATWG URL parser reads "\" as "/" and removes "." and ".."
// segments, "%2e" spelled too, before it fetches) was made in
// ClaudeCodeInvocation alone. The native tools a runtime asks about on
// POST /v1/turns/{id}/decisions, web_fetch and download_url, still parse
// their url with Go's net/url, which keeps both: the approver is shown
// (summary, URL detail) and the scope binds (url_path, url_full_hash) a
// path under /docs, while a runtime whose HTTP client parses URLs as WHATWG
// does (Node's fetch/undici, Rust's url crate under reqwest) requests
// /admin/users/delete:
//
//	shown   GET https://api.example/docs%5C..%5C..%5Cadmin%5Cusers%5Cdelete
//	fetched GET https://api.example/admin/users/delete?id=7
//
// and an allow_for_turn grant of the shown path covers the call.
// Wanted: as for WebFetch, such a URL is refused (or shown as fetched).
// Control: a URL without backslashes or dot segments is shown with the
// path fetched, and a dot inside a segment is no dot segment.
func TestAttack104_NativeFetchPathShownAsParsed(t *testing.T) {
	shown := func(tool, u string) string {
		t.Helper()
		args := map[string]string{"url": u}
		if tool == "download_url" {
			args["destination"] = "/w/out.json"
		}
		b, _ := json.Marshal(args)
		a, err := Classify(Invocation{ToolName: tool, Arguments: b}, "/w", nil)
		if err != nil {
			return "refused: " + err.Error()
		}
		return a.Redacted().Summary
	}
	for _, tool := range []string{"web_fetch", "download_url"} {
		// Controls: allowed and shown with the path fetched.
		if s := shown(tool, "https://api.example/admin/users/delete?id=7"); !strings.Contains(s, "https://api.example/admin/users/delete") {
			t.Fatalf("control: %s of the plain URL is not shown with the path fetched: %q", tool, s)
		}
		if s := shown(tool, "https://api.example/docs/v1.2/a..b/file.txt"); strings.HasPrefix(s, "refused") || !strings.Contains(s, "/docs/v1.2/a..b/file.txt") {
			t.Fatalf("control: %s with dots inside segments: %q", tool, s)
		}
		for _, c := range []struct{ u, fetched string }{
			// WHATWG's readings (new URL(u).pathname in Node, Url::parse in Rust):
			{`https://api.example/docs\..\..\admin\users\delete?id=7`, "/admin/users/delete"},
			{`https://api.example/docs/%2e%2e/admin/users/delete?id=7`, "/admin/users/delete"},
			{`https://api.example/docs/.%2E/admin/users/delete`, "/admin/users/delete"},
		} {
			s := shown(tool, c.u)
			if !strings.HasPrefix(s, "refused") && !strings.Contains(s, "api.example"+c.fetched) {
				t.Errorf("%s %s fetches https://api.example%s (WHATWG) and is shown and bound as %q", tool, c.u, c.fetched, s)
			}
		}
	}
}

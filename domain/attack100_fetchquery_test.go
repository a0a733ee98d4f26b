package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack100_FetchQueryNoPath (hundredth review, a false refusal the
// ninety-eighth review's fix introduced): dotSegments finds a URL's path
// as what follows the first '/' after "://", and cuts the query and
// fragment off only after that. A URL with no path before its query or
// fragment ("https://example.com?next=/docs/../api", an SPA's
// "https://app.example#/a/../b") has its first '/' inside the query, so
// the query is read as the path, and its "/../" refuses the fetch. WHATWG
// (and Go) read the path of both as "/": nothing is removed, the URL shown
// is the URL fetched.
//
// Control: the same URLs with the "/" path written are accepted, and a
// real dot segment is still refused.
func TestAttack100_FetchQueryNoPath(t *testing.T) {
	fetch := func(u string) error {
		_, err := ClaudeCodeInvocation("WebFetch", json.RawMessage(`{"url":`+a98JSON(u)+`,"prompt":"p"}`), "/w")
		return err
	}
	for _, u := range []string{"https://example.com/?next=/docs/../api", "https://app.example/#/a/../b"} {
		if err := fetch(u); err != nil {
			t.Fatalf("control: %s refused: %v", u, err)
		}
	}
	if err := fetch("https://example.com/docs/../api?x=1"); err == nil {
		t.Fatalf("control: a dot segment in the path is accepted")
	}
	for _, u := range []string{"https://example.com?next=/docs/../api", "https://app.example#/a/../b", "https://example.com:8443?x=a/./b"} {
		if err := fetch(u); err != nil {
			t.Errorf("%s (path \"/\", nothing removed) is refused: %v", u, err)
		}
	}
}

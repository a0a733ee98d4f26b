package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack104_WebFetchQueryBackslashRefused (low, a false deny of the
// ninety-eighth review's fix): a Claude Code WebFetch URL holding a
// backslash anywhere is refused ("holds a backslash, which Claude Code's
// URL parser reads as '/': write '/'"). The WHATWG URL parser reads a
// backslash as '/' only before the query (in the authority and the path of
// an http(s) URL); in the query and the fragment it is a byte like any
// other (new URL("https://a.example/s?q=C:\\Users").search is
// "?q=C:%5CUsers"), so what Go shows and binds there is what is fetched.
// An honest fetch of a search for a Windows path or a regular expression
// is refused, and the advice given ("write '/'") changes the query.
// Wanted: a backslash after the '?' or '#' is allowed (shown as fetched).
// Controls: a backslash in the path stays refused; the same query without
// a backslash is allowed.
func TestAttack104_WebFetchQueryBackslashRefused(t *testing.T) {
	fetch := func(u string) error {
		_, err := ClaudeCodeInvocation("WebFetch", json.RawMessage(`{"url":`+a98JSON(u)+`,"prompt":"summarise"}`), "/w")
		return err
	}
	if err := fetch(`https://api.example/docs\..\admin`); err == nil {
		t.Fatal("control: a backslash in the path is no longer refused")
	}
	if err := fetch(`https://api.example/search?q=C:/Users/x`); err != nil {
		t.Fatalf("control: a plain query is refused: %v", err)
	}
	for _, u := range []string{
		`https://api.example/search?q=C:\Users\x`,
		`https://api.example/search?q=\d+\s`,
		`https://api.example/docs#a\b`,
	} {
		if err := fetch(u); err != nil && strings.Contains(err.Error(), "backslash") {
			t.Errorf("WebFetch %s is refused, though its backslash is after the path, where WHATWG keeps it: %v", u, err)
		}
	}
}

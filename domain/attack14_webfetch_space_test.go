package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack14WebFetchUpgradeAfterLeadingSpace: Claude Code upgrades an
// http URL to https before it fetches, and the hook judges (grants, shows)
// the https one; but it parses the URL with the WHATWG parser, which first
// strips leading and trailing C0 controls and spaces, so " http://host/"
// is fetched as https://host/, while the hook, which looked for "http:" at
// the very start, judged it as http (port 80): an allow rule of the http
// origin alone (=http://host:80), or a grant of it, let the agent fetch the
// https origin, another port and service. The control: the http URL
// without the space is upgraded as before, and an https one is kept.
func TestAttack14WebFetchUpgradeAfterLeadingSpace(t *testing.T) {
	scheme := func(u string) string {
		raw, _ := json.Marshal(map[string]any{"url": u, "prompt": "p"})
		inv, err := ClaudeCodeInvocation("WebFetch", raw, "/w")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			return "refused"
		}
		return a.URL.Scheme + ":" + a.URL.Port()
	}
	for _, u := range []string{" http://example.org/x", "\x00http://example.org/x", "\t http://example.org/x", "\x1fHTTP://example.org/x"} {
		if got := scheme(u); got != "https:" && got != "refused" {
			t.Errorf("%q judged as %s; Claude Code fetches https://example.org/x", u, got)
		}
	}
	// control
	for u, want := range map[string]string{"http://example.org/x": "https:", "https://example.org:8443/x": "https:8443", "HTTP://example.org/": "https:"} {
		if got := scheme(u); got != want {
			t.Errorf("control %q: %s, want %s", u, got, want)
		}
	}
}

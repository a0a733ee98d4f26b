package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack80SearchWithUnreadableDomainsIsAsked (eightieth review, low: a
// runtime that takes the odd shape searches the denied host on a person's
// click, shown no domain at all): the seventy-ninth review's fix refuses a
// web_search whose allowed_domains lie outside the host rules, whatever
// the table; but the classifier reads the list with strList, which gives
// nil for anything but an array of strings (a string "evil.example", an
// array holding a non-string, a nested array), and nil is "names no
// domain": asked where the table asks, the prompt with no "Only from"
// line, nothing recorded in the scope for a profile change to judge. The
// key is there, naming the denied host; a runtime that coerces the value
// (a string for a one-element list, as many JSON-schema coercers do; a
// list flattened) searches evil.example once the person allows a search
// they were told is unrestricted.
//
// Control: the same search with the list well formed is refused
// host_denied (or host_not_allowed) before anyone is asked.
//
// Fix: fail closed on a present allowed_domains (and blocked_domains)
// the classifier cannot read: refuse the call as an invalid argument (or
// read a string as a one-element list and refuse anything else), rather
// than treating it as naming none.
func TestAttack80SearchWithUnreadableDomainsIsAsked(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.pypiask]
extends = ":workspace"
[permissions.pypiask.network]
enabled = true
[permissions.pypiask.network.domains]
"pypi.org" = "allow"
"evil.example" = "deny"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "sa", "workspace_id": "ws", "thread_id": "th-sa",
		"permission_profile": map[string]any{"profile": "pypiask"}, "workspace_root": root}, http.StatusCreated, nil)
	// Control: the well-formed list naming the denied host is refused.
	if d := runtime.decide("sa", "s0", "web_search", map[string]any{"query": "q", "allowed_domains": []string{"evil.example"}}); d.Decision != "deny" {
		t.Fatalf("control: a search kept to the denied host: %+v, want deny", d)
	}
	for i, v := range []any{"evil.example", []any{"evil.example", 1}, []any{[]any{"evil.example"}}, []any{"evil.example", nil}} {
		d := runtime.decide("sa", "s"+string(rune('1'+i)), "web_search", map[string]any{"query": "q", "allowed_domains": v})
		if d.Decision != "deny" {
			t.Errorf("a search whose allowed_domains %#v names the denied host is %s (%s), not refused: read as naming none", v, d.Decision, d.Reason)
		}
	}
}

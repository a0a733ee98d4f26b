//go:build knownlimits

package sandbox

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack77WebFetchWWWRedirectTwinUnjudged (seventy-seventh review,
// low: a host the profile does not allow is fetched through Claude Code's
// WebFetch): the hook judges WebFetch's URL as what Claude Code fetches
// (ccWebFetch already models its http→https upgrade), but not the
// redirects Claude Code follows on its own. Its fetch (utils.ts
// getWithPermittedRedirects) follows, without returning to the model or
// asking anyone, every redirect isPermittedRedirect accepts: same
// protocol and port, no credentials, and the same host once a leading
// "www." is stripped from both, i.e. a redirect that adds or removes
// "www.". A profile's bare domain is that host exactly (REFERENCE §10,
// "=allowed.test"), so under an allow-list naming allowed.test alone,
// WebFetch https://allowed.test/x is allowed and Claude Code then fetches
// https://www.allowed.test/x when the first answers 301 (and the other
// way round for an allow-list naming the www host alone), a host the
// allow-list never named and the decision never judged; a deny rule
// naming one of the two is passed the same way (allow "*", deny
// "www.tracker.test": WebFetch https://tracker.test/ lands there). The
// decision-time checks see the first URL only, and no egress proxy sees
// Claude Code's own fetches.
//
// Fix: for Claude Code's WebFetch, judge the URL's www twin too (the host
// with a leading "www." added, or removed), as the decision judges the
// https URL for an http one: where the twin is refused (host_not_allowed,
// host_denied, a special address), refuse the fetch (or ask, showing both
// hosts); or state the limit in the README next to the http→https note.
//
// Control: with both hosts allowed, the fetch and its twin are allowed.
// Attack: with one allowed (or the twin denied), the decision must not
// allow a fetch whose silent redirect reaches the twin.
func TestAttack77WebFetchWWWRedirectTwinUnjudged(t *testing.T) {
	decide := func(s *domain.TurnExecutionSecuritySnapshot, raw string) (*url.URL, error) {
		in, _ := json.Marshal(map[string]any{"url": raw, "prompt": "summarise"})
		inv, err := domain.ClaudeCodeInvocation("WebFetch", in, "/w")
		if err != nil {
			t.Fatal(err)
		}
		a, err := domain.Classify(inv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a.URL, DecisionChecker{}.CheckURL(s, a.URL.String())
	}
	// twin is the URL Claude Code's isPermittedRedirect follows silently
	// from u: its host with a leading "www." added or removed.
	twin := func(u *url.URL) string {
		v := *u
		if h, ok := strings.CutPrefix(v.Host, "www."); ok {
			v.Host = h
		} else {
			v.Host = "www." + v.Host
		}
		return v.String()
	}
	allow, deny := domain.DomainAllow, domain.DomainDeny
	// Control.
	_, both := domainsProfile(t, map[string]domain.DomainAccess{"allowed.test": allow, "www.allowed.test": allow})
	u, err := decide(both, "https://allowed.test/x")
	if err != nil || CheckURL(both, twin(u)) != nil {
		t.Fatalf("control: both hosts allowed: the fetch %v, its twin %v", err, CheckURL(both, twin(u)))
	}
	// Attack.
	for _, c := range []struct {
		name    string
		domains map[string]domain.DomainAccess
		url     string
	}{
		{"apex allowed alone", map[string]domain.DomainAccess{"allowed.test": allow}, "https://allowed.test/x"},
		{"www allowed alone", map[string]domain.DomainAccess{"www.allowed.test": allow}, "http://www.allowed.test/x"},
		{"www denied", map[string]domain.DomainAccess{"*": allow, "www.tracker.test": deny}, "https://tracker.test/"},
	} {
		_, s := domainsProfile(t, c.domains)
		u, err := decide(s, c.url)
		if err != nil {
			continue // refused: nothing is fetched
		}
		if terr := CheckURL(s, twin(u)); terr != nil {
			t.Errorf("%s: WebFetch %s is allowed, and Claude Code follows its redirect to %s on its own, which the profile refuses: %v",
				c.name, c.url, twin(u), terr)
		}
	}
}

package domain

import "testing"

// TestDomainsInside: a network call without a URL (a web search) under an
// allow-list keeps to it only when it names its domains, each allowed as a
// fetch of it would be and none denied, also below it; without an
// allow-list only a denied domain is outside (the seventy-fourth review).
func TestDomainsInside(t *testing.T) {
	list := NetworkPolicy{Mode: NetworkRestricted, AllowedDomains: []string{"=pypi.org", "**.python.org"}, DeniedDomains: []string{"=evil.example", "=bad.docs.python.org"}}
	open := NetworkPolicy{Mode: NetworkEnabled, DeniedDomains: []string{"=evil.example"}}
	for _, c := range []struct {
		n       *NetworkPolicy
		domains []string
		want    bool
	}{
		{&list, nil, false},
		{&list, []string{}, false},
		{&list, []string{"pypi.org"}, true},
		{&list, []string{"PyPI.org."}, true},
		{&list, []string{"pypi.org", "github.com"}, false},
		{&list, []string{"evil.example"}, false},
		{&list, []string{"www.python.org"}, true},
		{&list, []string{"docs.python.org"}, false}, // a denied host below it
		{&list, []string{"1.2.3.4"}, false},
		{&list, []string{"*.pypi.org"}, false},
		{&open, nil, true},
		{&open, []string{"github.com"}, true},
		{&open, []string{"example"}, false}, // a denied host below it
		{&open, []string{"sub.evil.example"}, true},
		{&open, []string{"evil.example"}, false},
		// A domain kept to a path is judged by its host (the eighty-second review).
		{&list, []string{"pypi.org/simple"}, true},
		{&list, []string{"github.com/org"}, false},
		{&list, []string{"docs.python.org/3"}, false},
		{&open, []string{"github.com/org"}, true},
		{&open, []string{"evil.example/x"}, false},
		{&open, []string{"/x"}, false},
		{&open, []string{"https://github.com/"}, false},
	} {
		if got := c.n.DomainsInside(c.domains); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.n.Mode, c.domains, got, c.want)
		}
	}
}

//go:build knownlimits

package domain

import "testing"

// TestAttack79SearchUnderExactRuleReachesSubdomains: the seventy-ninth
// review, against the seventy-fourth's web-search fix. A profile's
// `"pypi.org" = "allow"` is the EXACT rule "=pypi.org" in the snapshot
// (profileNetworkPolicy: "profile example.com (exact) is =example.com"):
// a fetch of https://evil.pypi.org/ is refused host_not_allowed. A web
// search whose allowed_domains is ["pypi.org"] gets its results, pages
// included, from pypi.org AND its subdomains (the search service includes
// subdomains; DomainsInside's own deny check says so: "its results may
// come from its subdomains"). DomainsInside checks the allow-list for the
// apex alone (a fetch of https://pypi.org/), so under the exact rule the
// search is allowed without asking, and reaches hosts below pypi.org that
// no fetch may (for a listed host whose subdomains others hold, as
// "s3.amazonaws.com" or "github.io" do, hosts of anyone's choosing).
//
// Severity: low (content in from hosts an exact allow rule excludes; the
// query itself goes to the search service either way).
//
// Fixed would look like: under an allow-list a domain is inside only when
// an allow rule covers it and every host below it (an apex-and-subdomains
// rule, "**.pypi.org" or "pypi.org" written as a tree), as the deny check
// already judges the tree; a domain only exact rules allow is asked or
// refused. (The seventy-fourth fix's own test asserts the opposite for
// "=pypi.org": that case changes with the fix. Note the false denies the
// fix brings: a profile's plain "pypi.org" is exact, so its searches would
// need "**.pypi.org" or a person.)
//
// Control: under the apex-and-subdomains rule "**.pypi.org" the same
// search is inside, and a fetch of a subdomain is allowed there too.
func TestAttack79SearchUnderExactRuleReachesSubdomains(t *testing.T) {
	exact := NetworkPolicy{Mode: NetworkRestricted, AllowedDomains: []string{"=pypi.org"}}
	tree := NetworkPolicy{Mode: NetworkRestricted, AllowedDomains: []string{"**.pypi.org"}}
	allows := func(n *NetworkPolicy, host string) bool {
		for _, raw := range n.AllowedDomains {
			if r, err := ParseNetRule(raw); err == nil && r.Matches(NetTarget{Scheme: "https", Host: host, Port: 443}, false) {
				return true
			}
		}
		return false
	}
	if !allows(&tree, "evil.pypi.org") || !tree.DomainsInside([]string{"pypi.org"}) {
		t.Fatalf("control: under **.pypi.org a subdomain's fetch and a search kept to pypi.org are allowed")
	}
	if allows(&exact, "evil.pypi.org") {
		t.Fatalf("precondition: under =pypi.org a fetch of evil.pypi.org is refused")
	}
	if exact.DomainsInside([]string{"pypi.org"}) {
		t.Errorf("under the exact rule =pypi.org (a profile's \"pypi.org\" = \"allow\"), a search kept to pypi.org, whose results come from evil.pypi.org too, is inside the allow-list")
	}
}

package sandbox

import (
	"net/netip"
	"testing"

	"turnstile/domain"
)

// TestAttack60StarAllowListDropsNamedLiterals (sixtieth review, low, a
// false deny): REFERENCE §10 — loopback, private, link-local, CGNAT and
// metadata addresses "are refused unless an allow-list names that IP
// literal or localhost"; "*" is allowed in an allow-list. A profile whose
// allow-list is "*" (every public host) plus a loopback or private
// literal (a dev server at 127.0.0.1, a LAN registry at 10.1.2.3) is
// refused those literals at enforcement, while its own decision
// (CompiledNetwork.DecideURL, `turnstile profiles --url`) answers them
// allowed by the rule naming them. profileNetworkPolicy
// (domain/profile_snapshot.go) turns an allow-list holding "*" into no
// allow-list (NetworkEnabled, AllowedDomains empty), so the exact rules
// naming the literals are dropped, and AllowNamedLoopback is set only
// under NetworkRestricted: checkTarget / CheckAddr then refuse
// 127.0.0.1 localhost_not_allowed and 10.1.2.3 private_address (no exact
// rule to match). Only "localhost" survives the "*" (it sets
// AllowLocalhost directly).
//
// Fix: under "*", keep the allow-list's IP-literal entries as exact rules
// the special-address gates read (e.g. a separate list, or
// AllowedDomains kept while Mode stays enabled and matchAny skipped), and
// set AllowNamedLoopback for a loopback literal whatever the mode.
//
// Control: the same literals without "*" (a restricted allow-list) are
// allowed by CheckURL and CheckAddr, and DecideURL allows them with "*".
// Attack: with "*" they must be allowed too.
func TestAttack60StarAllowListDropsNamedLiterals(t *testing.T) {
	compile := func(domains map[string]domain.DomainAccess) (*domain.CompiledProfile, *domain.TurnExecutionSecuritySnapshot) {
		return domainsProfile(t, domains)
	}
	lits := []string{"127.0.0.1", "10.1.2.3"}
	named := map[string]domain.DomainAccess{"example.test": domain.DomainAllow}
	star := map[string]domain.DomainAccess{"*": domain.DomainAllow}
	for _, l := range lits {
		named[l], star[l] = domain.DomainAllow, domain.DomainAllow
	}
	_, restricted := compile(named)
	cp, open := compile(star)

	for _, l := range lits {
		u := "http://" + l + ":8080/"
		a := netip.MustParseAddr(l)
		// Controls.
		if err := CheckURL(restricted, u); err != nil {
			t.Fatalf("control: an allow-list naming %s refuses %s: %v", l, u, err)
		}
		if err := CheckAddr(restricted, l, a, 8080); err != nil {
			t.Fatalf("control: an allow-list naming %s refuses the connection: %v", l, err)
		}
		if d := cp.Network.DecideURL("GET", u); !d.Allowed {
			t.Fatalf("control: the profile's own decision refuses %s under \"*\": %+v", u, d)
		}
		// Attack.
		if err := CheckURL(open, u); err != nil {
			t.Errorf("an allow-list of \"*\" and %s refuses %s, which the profile's decision allows: %v", l, u, err)
		}
		if err := CheckAddr(open, l, a, 8080); err != nil {
			t.Errorf("an allow-list of \"*\" and %s refuses the connection to it: %v", l, err)
		}
	}
	// Control: the public hosts "*" allows are allowed.
	if err := CheckURL(open, "https://anything.example.org/"); err != nil {
		t.Fatalf("control: \"*\" refuses a public host: %v", err)
	}
}

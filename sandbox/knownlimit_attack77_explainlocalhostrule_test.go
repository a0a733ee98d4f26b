//go:build knownlimits

package sandbox

import (
	"net/netip"
	"testing"

	"turnstile/domain"
)

// TestAttack77ExplainLocalhostRuleOpensEveryLoopback (seventy-seventh
// review, low: the explanation shows a wider profile than is enforced, the
// class of the sixtieth, sixty-fifth and seventy-second reviews' findings,
// left open for the allow rule "localhost"): under an allow-list the
// profile's own decision (CompiledNetwork.DecideURL, what `turnstile
// profiles --url` and the profile explanation answer) opens every special
// host of the localhost class by the rule "localhost" alone (`loopback &&
// raw == "localhost"`): every loopback literal (127.0.0.1, 127.0.0.2,
// [::1], 0.0.0.0, the decimal and IPv4-mapped forms) and every
// *.localhost name. Enforcement does not: profileNetworkPolicy writes the
// rule as "=localhost" (and sets allow_localhost), and both the decision-
// time check (checkTarget) and the proxy's connect-time check (CheckAddr)
// still match the host against the allow-list under a restricted network:
// http://127.0.0.1:8080/ and http://app.localhost/ are refused
// host_not_allowed. An operator reading the explanation believes the
// profile gives the agent the services on loopback by address (a
// database on 127.0.0.1:5432), and cannot find out why every request is
// refused; or, reading it the other way, approves a profile whose
// explanation shows more than the author meant.
//
// Fix: in DecideURL, under an allow-list (n.Restricted without "*"), the
// rule "localhost" opens the name "localhost" only (the host it names
// exactly, as "=localhost" is enforced); loopback literals need their own
// literal rule (which sets allow_named_loopback), and a *.localhost name a
// rule matching it, as checkTarget requires. (Or, if "localhost" is meant
// to open all of loopback, profileNetworkPolicy must add the loopback
// literals and *.localhost to the allow-list, and the README say so.)
//
// Control: http://localhost:8080/ is allowed by both, and an allowed public
// name too. Attack: each loopback literal and *.localhost name must be
// answered the same by the explanation and by enforcement (CheckURL, then
// CheckAddr on the address it connects to).
func TestAttack77ExplainLocalhostRuleOpensEveryLoopback(t *testing.T) {
	cp, s := domainsProfile(t, map[string]domain.DomainAccess{"localhost": domain.DomainAllow, "ok.example.org": domain.DomainAllow})
	loop := netip.MustParseAddr("127.0.0.1")
	enforced := func(u string, addr netip.Addr) error {
		if err := CheckURL(s, u); err != nil {
			return err
		}
		tt, rf := parseURLTarget(u)
		if rf != nil {
			return rf
		}
		if tt.Addr.IsValid() {
			addr = tt.Addr
		}
		return CheckAddr(s, tt.Host, addr, tt.Port)
	}
	// Controls.
	for _, c := range []struct {
		url  string
		addr netip.Addr
	}{{"http://localhost:8080/", loop}, {"https://ok.example.org/", netip.MustParseAddr("93.184.216.34")}} {
		if d := cp.Network.DecideURL("GET", c.url); !d.Allowed {
			t.Fatalf("control: the explanation refuses %s: %+v", c.url, d)
		}
		if err := enforced(c.url, c.addr); err != nil {
			t.Fatalf("control: enforcement refuses %s: %v", c.url, err)
		}
	}
	// Attack.
	for _, u := range []string{"http://127.0.0.1:8080/", "http://127.0.0.2/", "http://[::1]:5432/", "http://0.0.0.0/",
		"http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://app.localhost/"} {
		d := cp.Network.DecideURL("GET", u)
		err := enforced(u, loop)
		if d.Allowed != (err == nil) {
			t.Errorf("%s: the profile's decision says allowed=%v (rule %q, %s), enforcement says %v", u, d.Allowed, d.Rule, d.Reason, err)
		}
	}
}

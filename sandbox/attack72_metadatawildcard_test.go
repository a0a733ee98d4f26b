package sandbox

import (
	"net/netip"
	"testing"

	"turnstile/domain"
)

// TestAttack72ExplainAllowsSpecialNamesByWildcard (seventy-second review,
// low: the explanation shows a wider profile than is enforced, what the
// sixty-fifth review's shared classifier set out to end): DecideURL
// (domain/profile_network.go) now classifies the cloud-metadata names and
// localhost names with ClassifyName, but then opens any special host that
// a rule of the allow-list matches (matchesTarget), a wildcard included.
// For an IP literal that is harmless (a wildcard never matches one); for a
// name it is not what is enforced: the decision-time check (checkTarget,
// sandbox/network.go) opens a metadata name only with an exact rule
// (matchExact: "under an allow-list it needs an allow rule naming it") and
// a localhost name only with allow_localhost, which profileNetworkPolicy
// sets for a rule "localhost" alone; and the proxy's connect-time check
// (CheckAddr) refuses the metadata address the name resolves to unless a
// rule names that address. A profile allowing "**.google.internal" (an
// internal GCP zone) and "*.localhost" is explained as allowing
// http://metadata.google.internal/ and http://app.localhost/, both
// refused by enforcement.
//
// Fix: in DecideURL, open a special name (ClassifyName not public) only by
// an exact rule naming it ("localhost" for the localhost names), as
// checkTarget does; and, for a metadata name, say that the address it
// resolves to needs its own literal rule at connect time (CheckAddr
// judges exactAddr on the address).
//
// Control: a public name under the same wildcard is allowed by both.
func TestAttack72ExplainAllowsSpecialNamesByWildcard(t *testing.T) {
	cp, s := domainsProfile(t, map[string]domain.DomainAccess{"**.google.internal": domain.DomainAllow, "*.localhost": domain.DomainAllow})
	// Control.
	if u := "http://build.google.internal/"; !cp.Network.DecideURL("GET", u).Allowed || CheckURL(s, u) != nil ||
		CheckAddr(s, "build.google.internal", netip.MustParseAddr("203.0.114.7"), 80) != nil {
		t.Fatalf("control: %s: explained %+v, enforced %v / %v", u, cp.Network.DecideURL("GET", u), CheckURL(s, u),
			CheckAddr(s, "build.google.internal", netip.MustParseAddr("203.0.114.7"), 80))
	}
	// Attack.
	for _, c := range []struct {
		url, host string
		addr      netip.Addr
	}{
		{"http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal", netip.MustParseAddr("169.254.169.254")},
		{"http://app.localhost/", "app.localhost", netip.MustParseAddr("127.0.0.1")},
	} {
		d := cp.Network.DecideURL("GET", c.url)
		byURL, byAddr := CheckURL(s, c.url), CheckAddr(s, c.host, c.addr, 80)
		if d.Allowed && (byURL != nil || byAddr != nil) {
			t.Errorf("the profile's decision allows %s (rule %q, %s) while enforcement refuses it: %v / %v", c.url, d.Rule, d.Reason, byURL, byAddr)
		}
	}
}

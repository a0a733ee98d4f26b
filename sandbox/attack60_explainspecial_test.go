package sandbox

import (
	"testing"
)

// TestAttack60ExplainAllowsWhatTheProxyRefuses (sixtieth review, low, a
// false "allowed" in the profile's own decision): CompiledNetwork.DecideURL
// (domain/profile_network.go, what `turnstile profiles --url` and the
// profile explanation answer) takes a literal for special only through
// specialHost, which reads netip's IsPrivate / IsLinkLocal / IsLoopback /
// IsUnspecified / IsMulticast, CGNAT and the metadata list. The proxy's
// classifier (sandbox/netrules.go classifyAddr) refuses more: "this
// network" 0.0.0.0/8 as localhost, and 192.0.0.0/24, the benchmarking
// 198.18.0.0/15 (where fake-IP DNS of Clash/Surge-style VPNs puts every
// name), the documentation ranges and 240.0.0.0/4 as private. A profile
// with the network on and no domain rules is told these URLs are allowed
// (network_unrestricted), and every request to them is refused
// private_address / localhost_not_allowed at enforcement: the explanation
// shows a wider profile than the agent holds (REFERENCE §10: "show the
// effective one"), and an operator cannot find out why.
//
// Fix: one classifier — DecideURL's specialHost should use the sandbox's
// ranges (move privatePrefixes and the "this network" rule into domain,
// as MetadataAddrs was), or the sandbox's should be narrowed to the
// reference's list.
//
// Control: for 10.0.0.1 and 127.0.0.1 both refuse. Attack: for each of
// the other ranges the two must agree.
func TestAttack60ExplainAllowsWhatTheProxyRefuses(t *testing.T) {
	cp, s := domainsProfile(t, nil)
	agree := func(u string) (explained bool, enforced error) {
		return cp.Network.DecideURL("GET", u).Allowed, CheckURL(s, u)
	}
	// Controls.
	if ex, err := agree("https://www.example.org/"); !ex || err != nil {
		t.Fatalf("control: a public host: explained %v, enforced %v", ex, err)
	}
	for _, u := range []string{"http://10.0.0.1/", "http://127.0.0.1/"} {
		if ex, err := agree(u); ex || err == nil {
			t.Fatalf("control: %s: explained %v, enforced %v (both should refuse)", u, ex, err)
		}
	}
	// Attack.
	for _, u := range []string{"http://0.0.0.1/", "http://198.18.0.5/", "http://192.0.2.10/", "http://240.0.0.1/", "http://192.0.0.9/"} {
		if ex, err := agree(u); ex != (err == nil) {
			t.Errorf("%s: the profile's decision says allowed=%v, enforcement says %v", u, ex, err)
		}
	}
}

package domain

import (
	"net/netip"
	"testing"
)

// TestAttack77NewerSpecialIPv6PrefixesPublic (seventy-seventh review,
// low): ClassifyAddr, the one classifier of the egress proxy's
// connect-time check (sandbox.CheckAddr), the decision-time checks and
// the profile's own decision, refuses the documentation ranges as private
// ("never routed on the internet": RFC 5737's three IPv4 ranges and RFC
// 3849's 2001:db8::/32), but not the IPv6 documentation prefix RFC 9637
// added, 3fff::/20, nor the SRv6 SID prefix of RFC 9602, 5f00::/16, which
// "MUST NOT be routed" outside the segment-routing domain that numbers its
// routers' functions from it. Both are classified public: under a network
// without an allow-list every such literal (CONNECT [3fff::1]:443,
// http://[5f00::1]/) is allowed with no allow_private_networks and no rule
// naming it, where [2001:db8::1] is refused private_address; under an
// allow-list, an allowed name that resolves to one is connected to. An
// operator's lab or SR domain numbered from these prefixes is internal
// infrastructure, reached as if it were the internet.
//
// Fix: add 3fff::/20 and 5f00::/16 to PrivatePrefixes (and keep the list
// in step with IANA's IPv6 special-purpose registry: its entries marked
// not globally reachable).
//
// Control: 2001:db8::1 is private, and a global unicast address public.
func TestAttack77NewerSpecialIPv6PrefixesPublic(t *testing.T) {
	// Control.
	if c := ClassifyAddr(netip.MustParseAddr("2001:db8::1")); c != AddrPrivate {
		t.Fatalf("control: 2001:db8::1 is %s, want private", c)
	}
	if c := ClassifyAddr(netip.MustParseAddr("2606:4700::1111")); c != AddrPublic {
		t.Fatalf("control: 2606:4700::1111 is %s, want public", c)
	}
	// Attack.
	for _, a := range []string{"3fff::1", "3fff:fff:ffff::1", "5f00::1", "5f00:1234:5678::1"} {
		if c := ClassifyAddr(netip.MustParseAddr(a)); c == AddrPublic {
			t.Errorf("%s is classified public: a literal (or a name resolving to it) is connected to as a host on the internet", a)
		}
	}
}

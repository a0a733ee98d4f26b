package egress

import (
	"errors"
	"net/netip"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

// TestAttack21SelfAddressThroughNAT64: CheckAddr classifies a NAT64
// address (64:ff9b::/96) by the IPv4 address it embeds, but asks the
// routing table whether the address is the server's own (localRoute) on
// the IPv6 address only, which no interface holds. On a network with a
// NAT64 gateway (IPv6-only clouds, DNS64 resolvers: the very setting that
// answers names with such addresses), 64:ff9b::<the server's own IPv4> is
// translated back to the server's own interface address, where a service
// bound on 0.0.0.0 answers: the self-address refusal of the earlier review
// (attack_selfaddr_test.go) is passed by an allowed name whose AAAA record
// embeds the server's address. Wanted: an embedded IPv4 address (NAT64,
// 6to4, IPv4-compatible) is checked for being the server's own as the
// address itself is: localhost_not_allowed without allow_localhost.
// Control: the plain IPv4 address is refused so.
func TestAttack21SelfAddressThroughNAT64(t *testing.T) {
	self := hostAddr(t, "any")
	if !self.Is4() {
		t.Skip("this machine has no IPv4 interface address")
	}
	s := &domain.TurnExecutionSecuritySnapshot{Network: domain.NetworkPolicy{Mode: domain.NetworkRestricted,
		AllowedDomains: []string{"**.example.test"}, AllowPrivateNetworks: true}}
	code := func(a netip.Addr) string {
		err := sandbox.CheckAddr(s, "self.example.test", a, 8080)
		var rf *sandbox.Refusal
		if errors.As(err, &rf) {
			return rf.Code
		}
		if err != nil {
			return err.Error()
		}
		return "allowed"
	}
	if got := code(self); got != sandbox.CodeLocalhostNotAllowed {
		t.Fatalf("control: the server's own address %s: %s, want %s", self, got, sandbox.CodeLocalhostNotAllowed)
	}
	b := self.As4()
	nat64 := netip.AddrFrom16([16]byte{0x00, 0x64, 0xff, 0x9b, 10: 0, 11: 0, 12: b[0], 13: b[1], 14: b[2], 15: b[3]})
	if got := code(nat64); got != sandbox.CodeLocalhostNotAllowed {
		t.Errorf("%s (NAT64 of the server's own address %s): %s, want %s", nat64, self, got, sandbox.CodeLocalhostNotAllowed)
	}
}

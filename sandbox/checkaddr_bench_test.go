package sandbox

import (
	"net/netip"
	"testing"

	"turnstile/domain"
)

// BenchmarkCheckAddr: the connect-time check of one resolved address, as
// the egress proxy makes it per address of each connection: a public
// address under a restricted network (the host-address lookup runs: a
// netlink route query), and loopback with localhost allowed (it does not).
func BenchmarkCheckAddr(b *testing.B) {
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.com"}}
	s := &domain.TurnExecutionSecuritySnapshot{Network: np}
	pub := netip.MustParseAddr("93.184.216.34")
	b.Run("public", func(b *testing.B) {
		for b.Loop() {
			if err := CheckAddr(s, "www.example.com", pub, 443); err != nil {
				b.Fatal(err)
			}
		}
	})
	local := *s
	local.Network.AllowLocalhost = true
	lo := netip.MustParseAddr("127.0.0.1")
	b.Run("localhost_allowed", func(b *testing.B) {
		for b.Loop() {
			if err := CheckAddr(&local, "www.example.com", lo, 443); err != nil {
				b.Fatal(err)
			}
		}
	})
}

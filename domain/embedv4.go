package domain

import "net/netip"

// EmbedKind says how an IPv6 address embeds an IPv4 one.
type EmbedKind int

const (
	EmbedNone       EmbedKind = iota
	EmbedNAT64                // 64:ff9b::/96 (RFC 6052)
	EmbedNAT64Local           // 64:ff9b:1::/48 (RFC 8215), in the last 32 bits
	EmbedCompat               // the deprecated IPv4-compatible ::a.b.c.d
	Embed6to4                 // 2002:AABB:CCDD::/48 (RFC 3056)
)

var (
	nat64Prefix      = netip.MustParsePrefix("64:ff9b::/96")
	nat64LocalPrefix = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFourPrefix  = netip.MustParsePrefix("2002::/16")
)

// EmbeddedIPv4 returns the IPv4 address an IPv6 one embeds, which a
// translating gateway reaches for it, and how. IPv4-mapped addresses are
// not among them: they are that IPv4 address (unmap them first).
func EmbeddedIPv4(a netip.Addr) (netip.Addr, EmbedKind, bool) {
	if !a.Is6() || a.Is4In6() {
		return netip.Addr{}, EmbedNone, false
	}
	a = a.WithZone("")
	b := a.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case nat64Prefix.Contains(a):
		return last, EmbedNAT64, true
	case nat64LocalPrefix.Contains(a):
		return last, EmbedNAT64Local, true
	case v4Compatible(b):
		return last, EmbedCompat, true
	case sixToFourPrefix.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), Embed6to4, true
	}
	return netip.Addr{}, EmbedNone, false
}

// v4Compatible reports a deprecated IPv4-compatible address ::a.b.c.d
// (other than :: and ::1, which are what they are).
func v4Compatible(b [16]byte) bool {
	for i := range 12 {
		if b[i] != 0 {
			return false
		}
	}
	return b[12]|b[13] != 0
}

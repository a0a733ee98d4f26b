package domain

import (
	"net/netip"
	"slices"
	"strings"
)

// AddrClass classifies a destination address: the egress proxy's gates and
// a profile's own decision (CompiledNetwork.DecideURL) read the same one,
// so that an explanation never allows what enforcement refuses (the
// sixtieth review found 0.0.0.0/8, 198.18.0.0/15 and the documentation
// ranges allowed by the one and refused by the other).
type AddrClass string

// Address classes.
const (
	AddrPublic    AddrClass = "public"
	AddrLocalhost AddrClass = "localhost"
	AddrPrivate   AddrClass = "private"
	AddrMetadata  AddrClass = "cloud-metadata"
)

// PrivatePrefixes are refused unless private networks are allowed (or an
// allow rule names the literal): RFC 1918, CGNAT, link-local, ULA,
// site-local, IETF protocol assignments, benchmarking, documentation (RFC
// 5737, RFC 3849, RFC 9637's 3fff::/20: never routed on the internet),
// SRv6 SIDs (RFC 9602's 5f00::/16, internal to a routing domain), reserved
// and multicast ranges.
var PrivatePrefixes = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("224.0.0.0/4"), netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("fe80::/10"), netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("ff00::/8"), netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("3fff::/20"), netip.MustParsePrefix("5f00::/16"),
}

var (
	loopback4   = netip.MustParsePrefix("127.0.0.0/8")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	broadcast4  = netip.AddrFrom4([4]byte{255, 255, 255, 255})
)

// ClassifyAddr classifies an address. IPv4-mapped, IPv4-compatible, NAT64
// (64:ff9b::/96) and 6to4 (2002::/16) addresses are classified by the IPv4
// address they embed. Loopback and "this network" (0.0.0.0/8, ::) reach the
// local host.
func ClassifyAddr(a netip.Addr) AddrClass {
	a = a.WithZone("").Unmap()
	if v4, how, ok := EmbeddedIPv4(a); ok {
		c := ClassifyAddr(v4)
		switch {
		case how == EmbedNAT64 || how == EmbedCompat:
			return c
		case how == EmbedNAT64Local:
			// Never public; as strict as the address it embeds.
			if c == AddrMetadata || c == AddrLocalhost {
				return c
			}
			return AddrPrivate
		case c == AddrMetadata:
			return c // 6to4 of a metadata address
		case c != AddrPublic:
			return AddrPrivate // 6to4 of a local or private one
		}
		// 6to4 of a public address: judged as the IPv6 address it is.
	}
	switch {
	case a.IsLoopback() || a.IsUnspecified() || (a.Is4() && (loopback4.Contains(a) || thisNetwork.Contains(a))):
		return AddrLocalhost
	case slices.Contains(MetadataAddrs, a):
		return AddrMetadata
	}
	for _, p := range PrivatePrefixes {
		if p.Contains(a) {
			return AddrPrivate
		}
	}
	if a == broadcast4 {
		return AddrPrivate
	}
	return AddrPublic
}

// MetadataNames are cloud-metadata host names.
var MetadataNames = []string{"metadata.google.internal", "metadata.goog"}

// ClassifyName classifies a host name (not an IP literal): a localhost
// name, a cloud-metadata name, or public.
func ClassifyName(host string) AddrClass {
	switch {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return AddrLocalhost
	case host == "metadata" || slices.Contains(MetadataNames, host):
		return AddrMetadata
	}
	return AddrPublic
}

package sandbox

import (
	"net/netip"
	"strings"

	"turnstile/domain"
)

// hostClass classifies a destination.
type hostClass string

const (
	classPublic    hostClass = "public"
	classLocalhost hostClass = "localhost"
	classPrivate   hostClass = "private"
	classMetadata  hostClass = "cloud-metadata"
)

// metadataNames are cloud-metadata host names.
var metadataNames = []string{"metadata.google.internal", "metadata.goog"}

// metadataAddrs are cloud-metadata addresses (domain.MetadataAddrs).
var metadataAddrs = domain.MetadataAddrs

// privatePrefixes are refused unless private networks are allowed: RFC 1918,
// CGNAT, link-local, ULA, site-local, IETF protocol assignments, benchmarking,
// documentation (RFC 5737, RFC 3849: never routed on the internet), reserved
// and multicast ranges.
var privatePrefixes = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("224.0.0.0/4"), netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("fe80::/10"), netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("ff00::/8"), netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("2001:db8::/32"),
}

var (
	loopback4   = netip.MustParsePrefix("127.0.0.0/8")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
)

// classifyName classifies a host name (not an IP literal).
func classifyName(host string) hostClass {
	switch {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return classLocalhost
	case host == "metadata" || containsString(metadataNames, host):
		return classMetadata
	}
	return classPublic
}

// classifyAddr classifies an address. IPv4-mapped, IPv4-compatible, NAT64
// (64:ff9b::/96) and 6to4 (2002::/16) addresses are classified by the IPv4
// address they embed. Loopback and "this network" (0.0.0.0/8, ::) reach the
// local host.
func classifyAddr(a netip.Addr) hostClass {
	a = a.WithZone("").Unmap()
	if v4, how, ok := domain.EmbeddedIPv4(a); ok {
		c := classifyAddr(v4)
		switch {
		case how == domain.EmbedNAT64 || how == domain.EmbedCompat:
			return c
		case how == domain.EmbedNAT64Local:
			// Never public; as strict as the address it embeds.
			if c == classMetadata || c == classLocalhost {
				return c
			}
			return classPrivate
		case c == classMetadata:
			return c // 6to4 of a metadata address
		case c != classPublic:
			return classPrivate // 6to4 of a local or private one
		}
		// 6to4 of a public address: judged as the IPv6 address it is.
	}
	switch {
	case a.IsLoopback() || a.IsUnspecified() || (a.Is4() && (loopback4.Contains(a) || thisNetwork.Contains(a))):
		return classLocalhost
	case containsAddr(metadataAddrs, a):
		return classMetadata
	}
	for _, p := range privatePrefixes {
		if p.Contains(a) {
			return classPrivate
		}
	}
	if a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return classPrivate
	}
	return classPublic
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsAddr(list []netip.Addr, a netip.Addr) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// matchAny returns the first rule of rules that matches t (a rule that does
// not parse matches nothing).
func matchAny(rules []string, t domain.NetTarget, deny bool) (string, bool) {
	for _, raw := range rules {
		if r, err := domain.ParseNetRule(raw); err == nil && r.Matches(t, deny) {
			return raw, true
		}
	}
	return "", false
}

// matchExact returns the first exact ("=host" or "=scheme://host:port") rule
// that names t.
func matchExact(rules []string, t domain.NetTarget) (string, bool) {
	for _, raw := range rules {
		if r, err := domain.ParseNetRule(raw); err == nil && (r.Kind == domain.RuleExact || r.Kind == domain.RuleOrigin) && r.Matches(t, false) {
			return raw, true
		}
	}
	return "", false
}

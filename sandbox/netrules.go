package sandbox

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
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

// metadataAddrs are cloud-metadata addresses (AWS, GCP, Azure, OpenStack:
// 169.254.169.254; AWS IPv6: fd00:ec2::254; Alibaba: 100.100.100.200).
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("100.100.100.200"),
}

// privatePrefixes are refused unless private networks are allowed: RFC 1918,
// CGNAT, link-local, ULA, site-local, IETF protocol assignments, benchmarking,
// reserved and multicast ranges.
var privatePrefixes = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("224.0.0.0/4"), netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("fe80::/10"), netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("ff00::/8"), netip.MustParsePrefix("64:ff9b:1::/48"),
}

var (
	loopback4   = netip.MustParsePrefix("127.0.0.0/8")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
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
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a) || isV4Compatible(b):
			a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixToFour.Contains(a):
			if c := classifyAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); c != classPublic {
				return classPrivate
			}
		}
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

// isV4Compatible reports a deprecated IPv4-compatible address ::a.b.c.d
// (other than :: and ::1, which are classified as such).
func isV4Compatible(b [16]byte) bool {
	for i := 0; i < 12; i++ {
		if b[i] != 0 {
			return false
		}
	}
	return b[12]|b[13] != 0
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

// domainRule is a parsed allow or deny rule: "example.com" (it and its
// subdomains), "*.example.com" (subdomains only; for a deny rule also the
// domain itself), "=example.com" (that host only), "=https://example.com:8443"
// (that scheme, host and effective port).
type domainRule struct {
	host    string
	exact   bool
	subOnly bool
	scheme  string
	port    int
	isIP    bool
}

// parseRule parses one rule; ok is false for a malformed rule, which matches
// nothing.
func parseRule(raw string, deny bool) (domainRule, bool) {
	r := strings.ToLower(strings.TrimSpace(raw))
	rest, exact := strings.CutPrefix(r, "=")
	if exact && strings.Contains(rest, "://") {
		u, err := url.Parse(rest)
		if err != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return domainRule{}, false
		}
		def, ok := defaultPorts[u.Scheme]
		if !ok {
			return domainRule{}, false
		}
		host, ip, ok := normalizeHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
		if !ok {
			return domainRule{}, false
		}
		port := def
		if p := u.Port(); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 65535 {
				return domainRule{}, false
			}
			port = n
		}
		return domainRule{host: host, exact: true, scheme: u.Scheme, port: port, isIP: ip.IsValid()}, true
	}
	sub := false
	if h, ok := strings.CutPrefix(rest, "*."); ok && !exact {
		rest, sub = h, !deny
	}
	rest = strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]")
	host, ip, ok := normalizeHost(rest, strings.Contains(rest, ":"))
	if !ok {
		return domainRule{}, false
	}
	return domainRule{host: host, exact: exact || ip.IsValid(), subOnly: sub, isIP: ip.IsValid()}, true
}

// matches reports whether the rule matches t. At connect time t.scheme is
// empty and an origin rule matches on host and port.
func (r domainRule) matches(t target) bool {
	switch {
	case r.scheme != "":
		return t.host == r.host && t.port == r.port && (t.scheme == "" || t.scheme == r.scheme)
	case r.exact:
		return t.host == r.host
	case r.subOnly:
		return strings.HasSuffix(t.host, "."+r.host)
	default:
		return t.host == r.host || (!t.ip.IsValid() && strings.HasSuffix(t.host, "."+r.host))
	}
}

// matchAny returns the first rule of rules that matches t.
func matchAny(rules []string, t target, deny bool) (string, bool) {
	for _, raw := range rules {
		if r, ok := parseRule(raw, deny); ok && r.matches(t) {
			return raw, true
		}
	}
	return "", false
}

// matchExact returns the first exact ("=host" or "=scheme://host:port") rule
// that names t.
func matchExact(rules []string, t target) (string, bool) {
	for _, raw := range rules {
		if r, ok := parseRule(raw, false); ok && r.exact && r.matches(t) {
			return raw, true
		}
	}
	return "", false
}

package domain

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// NetRuleKind says which hosts a domain rule names.
type NetRuleKind uint8

// Domain rule kinds (REFERENCE §5, §10). An IP literal rule is always exact.
const (
	// RuleApexAndSubdomains: "example.com" and "**.example.com" match the
	// domain and every subdomain on a dot boundary (REFERENCE §5 for the bare
	// form; §10's "**." form means the same).
	RuleApexAndSubdomains NetRuleKind = iota
	// RuleSubdomains: "*.example.com" matches subdomains only (as a denied
	// rule it also matches the domain itself: denying wider is safe).
	RuleSubdomains
	// RuleExact: "=example.com" (or an IP literal) matches that host only,
	// any scheme and port.
	RuleExact
	// RuleOrigin: "=https://example.com:8443" matches that scheme, host and
	// effective port only (the default port when none is written).
	RuleOrigin
)

// NetRule is one parsed domain rule. Parse with ParseNetRule: the decision
// checker, the connect-time dialer and cap intersection all read rules
// through it, so they cannot disagree on what a rule names.
type NetRule struct {
	Kind NetRuleKind
	// Host is the normalised name, or the canonical string of Addr.
	Host string
	// Addr is set when the rule names an IP literal.
	Addr   netip.Addr
	Scheme string // RuleOrigin only
	Port   int    // RuleOrigin only
}

// NetTarget is what a rule is matched against: the scheme (empty at connect
// time), the normalised host (canonical IP string for an IP literal), the
// effective port and, for an IP literal, the address.
type NetTarget struct {
	Scheme string
	Host   string
	Port   int
	Addr   netip.Addr
}

// DefaultPorts are the schemes a network rule or URL may name, with their
// default ports.
var DefaultPorts = map[string]int{"http": 80, "https": 443}

var errBadRule = errors.New("not a domain rule (example.com, *.example.com, **.example.com, =host, =https://host:port)")

// ParseNetRule parses a domain rule. Case, surrounding space and one
// trailing dot do not matter; IPv4 addresses in any form inet_aton reads
// ("2130706433", "0x7f.1", "127.1") are the address they denote, and IPv4-
// mapped IPv6 addresses their IPv4 address.
func ParseNetRule(raw string) (NetRule, error) {
	r := strings.ToLower(strings.TrimSpace(raw))
	rest, exact := strings.CutPrefix(r, "=")
	if exact && strings.Contains(rest, "://") {
		u, err := url.Parse(rest)
		if err != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return NetRule{}, errBadRule
		}
		def, ok := DefaultPorts[u.Scheme]
		if !ok {
			return NetRule{}, errBadRule
		}
		host, addr, ok := ParseHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
		if !ok {
			return NetRule{}, errBadRule
		}
		port := def
		if p := u.Port(); p != "" {
			if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
				return NetRule{}, errBadRule
			}
		}
		return NetRule{Kind: RuleOrigin, Host: host, Addr: addr, Scheme: u.Scheme, Port: port}, nil
	}
	kind := RuleApexAndSubdomains
	switch {
	case exact:
		kind = RuleExact
	case strings.HasPrefix(rest, "**."):
		rest = rest[3:]
	case strings.HasPrefix(rest, "*."):
		kind, rest = RuleSubdomains, rest[2:]
	}
	bracketed := strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]")
	if bracketed {
		rest = rest[1 : len(rest)-1]
	}
	host, addr, ok := ParseHost(rest, bracketed || strings.Contains(rest, ":"))
	if !ok {
		return NetRule{}, errBadRule
	}
	if addr.IsValid() {
		if kind == RuleSubdomains || strings.HasPrefix(r, "**.") {
			return NetRule{}, errBadRule // an address has no subdomains
		}
		kind = RuleExact
	}
	return NetRule{Kind: kind, Host: host, Addr: addr}, nil
}

// String renders the rule in its canonical form; ParseNetRule reads it back
// as the same rule.
func (r NetRule) String() string {
	h := r.Host
	if r.Addr.Is6() {
		h = "[" + h + "]"
	}
	switch r.Kind {
	case RuleSubdomains:
		return "*." + h
	case RuleExact:
		return "=" + h
	case RuleOrigin:
		return "=" + r.Scheme + "://" + h + ":" + strconv.Itoa(r.Port)
	}
	return h
}

// Matches reports whether the rule names t. A denied RuleSubdomains rule
// also matches the domain itself. At connect time t.Scheme is empty and an
// origin rule matches on host and port.
func (r NetRule) Matches(t NetTarget, denied bool) bool {
	same := t.Host == r.Host
	if denied && !same && r.Addr.Is4() && t.Addr.IsValid() {
		// A denied IPv4 address is denied in the IPv6 forms a gateway
		// translates to it (NAT64, 6to4, IPv4-compatible).
		v4, _, ok := EmbeddedIPv4(t.Addr)
		same = ok && v4 == r.Addr
	}
	switch r.Kind {
	case RuleOrigin:
		return same && t.Port == r.Port && (t.Scheme == "" || t.Scheme == r.Scheme)
	case RuleExact:
		return same
	case RuleSubdomains:
		return (denied && same) || (!t.Addr.IsValid() && strings.HasSuffix(t.Host, "."+r.Host))
	}
	return same || (!t.Addr.IsValid() && strings.HasSuffix(t.Host, "."+r.Host))
}

// Covers reports whether every target o allows, r allows too (as allow
// rules).
func (r NetRule) Covers(o NetRule) bool {
	switch r.Kind {
	case RuleOrigin:
		return o.Kind == RuleOrigin && o.Host == r.Host && o.Port == r.Port && o.Scheme == r.Scheme
	case RuleExact:
		return o.Host == r.Host && (o.Kind == RuleExact || o.Kind == RuleOrigin)
	case RuleSubdomains:
		return !o.Addr.IsValid() && (strings.HasSuffix(o.Host, "."+r.Host) || (o.Kind == RuleSubdomains && o.Host == r.Host))
	}
	return o.Host == r.Host || (!o.Addr.IsValid() && strings.HasSuffix(o.Host, "."+r.Host))
}

// ParseHost normalises a URL host (NormalizeHost) and validates it: an IP
// literal (bracketed IPv6, dotted IPv4, or a numeric IPv4 form inet_aton
// accepts) becomes its canonical string (IPv4-mapped IPv6 unmapped, zone
// dropped); a name must be ASCII labels of letters, digits, '-' and '_'
// without empty labels. ok is false for anything else.
func ParseHost(h string, bracketed bool) (host string, addr netip.Addr, ok bool) {
	host = NormalizeHost(h)
	if host == "" {
		return "", netip.Addr{}, false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.WithZone("").Unmap()
		return a.String(), a, true
	}
	if bracketed {
		return "", netip.Addr{}, false
	}
	if a, ok := ParseInetAton(host); ok {
		return a.String(), a, true
	}
	if endsInANumber(host) {
		// The WHATWG URL parser reads such a host as IPv4 and fails on
		// it; a name is never judged for what a runtime may read as an
		// address.
		return "", netip.Addr{}, false
	}
	if len(host) > 253 {
		return "", netip.Addr{}, false
	}
	for label := range strings.SplitSeq(host, ".") {
		if label == "" || len(label) > 63 {
			return "", netip.Addr{}, false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", netip.Addr{}, false
			}
		}
	}
	return host, netip.Addr{}, true
}

// endsInANumber reports whether the WHATWG URL parser reads host as an IPv4
// address: its last label (a trailing empty one dropped) is digits, or "0x"
// and hex digits.
func endsInANumber(host string) bool {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// ParseInetAton reads the IPv4 forms of inet_aton(3) that resolvers accept:
// one to four parts, each decimal, octal (leading 0) or hex (0x); the last
// part fills the remaining bytes. A bare "0x" is 0, as the WHATWG URL
// parser (Node's fetch, Rust's url crate) reads it: http://0x7f.0x.0x.1/
// is 127.0.0.1 to a runtime that fetches with them.
func ParseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" && base == 10 {
			return netip.Addr{}, false
		}
		if digits == "" {
			digits = "0" // "0" and, to the WHATWG URL parser, "0x"
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var ip uint64
	last := len(vals) - 1
	for i := 0; i < last; i++ {
		if vals[i] > 0xff {
			return netip.Addr{}, false
		}
		ip |= vals[i] << (24 - 8*i)
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	ip |= vals[last]
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

// DomainsInside reports whether a network call without a URL whose results
// come from domains alone (web_search's allowed_domains) keeps within n's
// host rules: none of them denied, by a rule naming it, a domain above it
// or one below it (its results may come from its subdomains), and, under
// an allow-list, domains given and each allowed as a fetch of https://it/
// would be. A search names no host a URL check sees (its query goes to the
// search service, its pages come from anywhere), so under an allow-list
// one without domains is outside (the seventy-fourth review). A domain
// whose host part (before a "/") is not a host name is outside.
func (n *NetworkPolicy) DomainsInside(domains []string) bool {
	// A network disabled until granted that keeps a list is judged by it,
	// as Approvable opens it (the hundred-and-seventy-seventh review: a
	// search kept to a host outside it was asked of a person).
	restricted := hasAllowList(n)
	if restricted && len(domains) == 0 {
		return false
	}
	for _, d := range domains {
		// A domain kept to a path ("docs.python.org/3", which the search
		// tool accepts) is judged by its host: the path only narrows it
		// (the eighty-second review's false deny).
		d, _, _ = strings.Cut(d, "/")
		host, addr, ok := ParseHost(d, false)
		if !ok || addr.IsValid() {
			return false
		}
		tree := NetRule{Kind: RuleApexAndSubdomains, Host: host}
		for _, raw := range n.DeniedDomains {
			r, err := ParseNetRule(raw)
			if err == nil && (r.Matches(NetTarget{Host: host}, true) || tree.Covers(NetRule{Kind: RuleExact, Host: r.Host, Addr: r.Addr})) {
				return false
			}
		}
		if !restricted {
			continue
		}
		allowed := false
		for _, raw := range n.AllowedDomains {
			if r, err := ParseNetRule(raw); err == nil && r.Matches(NetTarget{Scheme: "https", Host: host, Port: 443}, false) {
				allowed = true
				break
			}
		}
		if !allowed {
			return false
		}
	}
	return true
}

package sandbox

import (
	"net/netip"

	"turnstile/domain"
)

// hostClass classifies a destination (domain.AddrClass: the profile's
// own decision classifies addresses the same way).
type hostClass = domain.AddrClass

const (
	classPublic    = domain.AddrPublic
	classLocalhost = domain.AddrLocalhost
	classPrivate   = domain.AddrPrivate
	classMetadata  = domain.AddrMetadata
)

// classifyName classifies a host name (not an IP literal):
// domain.ClassifyName.
func classifyName(host string) hostClass { return domain.ClassifyName(host) }

// classifyAddr classifies an address: domain.ClassifyAddr.
func classifyAddr(a netip.Addr) hostClass { return domain.ClassifyAddr(a) }

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

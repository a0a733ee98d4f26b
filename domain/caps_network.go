package domain

import (
	"fmt"
	"slices"
)

// The network dimension of caps and intersection: rules are read by
// ParseNetRule, so a cap, a decision and the sandbox agree on what each
// rule names.

// IntersectNetwork: disabled > restricted > enabled; allowed domains
// intersect (rule-aware), denied domains union, flags AND.
func IntersectNetwork(a, b NetworkPolicy) NetworkPolicy {
	out := NetworkPolicy{
		Mode:                 StricterNetwork(a.Mode, b.Mode),
		DeniedDomains:        sortedUnique(append(slices.Clone(a.DeniedDomains), b.DeniedDomains...)),
		AllowLocalhost:       a.AllowLocalhost && b.AllowLocalhost,
		AllowUnixSockets:     a.AllowUnixSockets && b.AllowUnixSockets,
		AllowPrivateNetworks: a.AllowPrivateNetworks && b.AllowPrivateNetworks,
		AllowNamedLoopback:   (a.AllowNamedLoopback || a.AllowLocalhost) && (b.AllowNamedLoopback || b.AllowLocalhost),
	}
	// A disabled network stays locked when either side locked it.
	out.Locked = out.Mode == NetworkDisabled && ((a.Mode == NetworkDisabled && a.Locked) || (b.Mode == NetworkDisabled && b.Locked))
	aList, bList := hasAllowList(&a), hasAllowList(&b)
	if out.Mode == NetworkRestricted || out.Mode == NetworkDisabled && !out.Locked && (aList || bList) {
		// A network disabled until granted keeps the allow-list it would
		// be granted under (Approvable): a child turn (its mode's table,
		// disabled) of a turn whose profile restricts the network to a
		// list was asked about any host (the hundred-and-seventy-sixth
		// review).
		out.AllowedDomains, _ = intersectLists(a.AllowedDomains, aList, b.AllowedDomains, bList, meetDomainRules)
		if out.Mode == NetworkDisabled && len(out.AllowedDomains) == 0 {
			out.Locked = true // two lists that share nothing: no host to grant
		}
	}
	// Methods: a side with a list (a profile's "limited") bounds the other;
	// two lists that share nothing leave no method, hence no network.
	switch {
	case len(a.AllowedMethods) > 0 && len(b.AllowedMethods) > 0:
		for _, m := range a.AllowedMethods {
			if slices.Contains(b.AllowedMethods, m) {
				out.AllowedMethods = append(out.AllowedMethods, m)
			}
		}
		if len(out.AllowedMethods) == 0 {
			out.Mode, out.Locked, out.AllowedDomains = NetworkDisabled, true, nil
		}
	case len(a.AllowedMethods) > 0:
		out.AllowedMethods = slices.Clone(a.AllowedMethods)
	case len(b.AllowedMethods) > 0:
		out.AllowedMethods = slices.Clone(b.AllowedMethods)
	}
	out.AllowedMethods = sortedUnique(out.AllowedMethods)
	return out
}

// hasAllowList reports whether n passes only its allowed domains: a
// restricted network, or one disabled until granted that keeps the list it
// would be granted under.
func hasAllowList(n *NetworkPolicy) bool {
	return n.Mode == NetworkRestricted || n.Mode == NetworkDisabled && !n.Locked && len(n.AllowedDomains) > 0
}

// methodsBroader reports whether the method list c allows a method p does
// not (an empty list allows every method).
func methodsBroader(c, p []string) bool {
	if len(p) == 0 {
		return false
	}
	if len(c) == 0 {
		return true
	}
	for _, m := range c {
		if !slices.Contains(p, m) {
			return true
		}
	}
	return false
}

// meetDomainRules returns the narrower of two domain rules when one covers
// the other.
func meetDomainRules(x, y string) (string, bool) {
	switch {
	case DomainRuleCovers(x, y):
		return y, true
	case DomainRuleCovers(y, x):
		return x, true
	}
	return "", false
}

// DomainRuleCovers reports whether every URL that rule y allows, rule x
// allows too (NetRule.Covers). A rule ParseNetRule refuses covers nothing
// and is covered by nothing.
func DomainRuleCovers(x, y string) bool {
	xr, err := ParseNetRule(x)
	if err != nil {
		return false
	}
	yr, err := ParseNetRule(y)
	return err == nil && xr.Covers(yr)
}

func networkBroader(c, p NetworkPolicy) bool {
	if c.Mode == NetworkDisabled && p.Mode == NetworkDisabled && p.Locked && !c.Locked {
		return true
	}
	if c.Mode.rank() < p.Mode.rank() || (c.AllowLocalhost && !p.AllowLocalhost) ||
		(c.AllowUnixSockets && !p.AllowUnixSockets) || (c.AllowPrivateNetworks && !p.AllowPrivateNetworks) ||
		(c.AllowNamedLoopback && !p.AllowNamedLoopback && !p.AllowLocalhost) ||
		(c.Mode != NetworkDisabled && methodsBroader(c.AllowedMethods, p.AllowedMethods)) {
		return true
	}
	if c.Mode == NetworkRestricted && p.Mode == NetworkRestricted {
		return listBroader(c.AllowedDomains, true, p.AllowedDomains, true, func(x, y string) bool { return DomainRuleCovers(y, x) })
	}
	return false
}

// checkNetRules refuses a rule of np that ParseNetRule does not read (it
// would silently match nothing), naming it under field.
func checkNetRules(np *NetworkPolicy, field string) error {
	for _, l := range []struct {
		name  string
		rules []string
	}{{"allowed_domains", np.AllowedDomains}, {"denied_domains", np.DeniedDomains}} {
		for i, r := range l.rules {
			if _, err := ParseNetRule(r); err != nil {
				return &FieldError{Field: fmt.Sprintf("%s.%s[%d]", field, l.name, i), Value: r, Message: err.Error()}
			}
		}
	}
	return nil
}

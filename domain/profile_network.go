package domain

import (
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// DomainPattern is a parsed profile domain pattern: "example.com" that host
// exactly, "*.example.com" its subdomains only, "**.example.com" the apex and
// its subdomains, "*" every host (allow-list only). An IP literal or
// "localhost" matches exactly.
type DomainPattern struct {
	Raw  string
	Base string // the host part after "*." or "**."
	Sub  bool   // matches subdomains of Base
	Apex bool   // matches Base itself
	Any  bool   // "*"
}

// ParseDomainPattern parses a domain rule's key for the given value.
func ParseDomainPattern(raw string, v DomainAccess) (DomainPattern, error) {
	p := DomainPattern{Raw: raw}
	s := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(raw)), ".")
	if s != raw && s+"." != raw {
		return p, errors.New("write the pattern in lower case without spaces")
	}
	switch {
	case s == "*":
		if v == DomainDeny {
			return p, errors.New(`"*" is allowed only in the allow-list (deny-all is the empty allow-list)`)
		}
		p.Any = true
		return p, nil
	case strings.HasPrefix(s, "**."):
		p.Base, p.Sub, p.Apex = s[3:], true, true
	case strings.HasPrefix(s, "*."):
		p.Base, p.Sub = s[2:], true
	default:
		p.Base, p.Apex = s, true
	}
	if p.Base == "" || strings.ContainsAny(p.Base, "*/:@?#[] ") && !isIPLiteral(p.Base) {
		return p, errors.New("a pattern is a host name, *.host, **.host or * (no scheme, port, path or inner wildcard)")
	}
	if isIPLiteral(p.Base) && p.Sub {
		return p, errors.New("an IP literal takes no wildcard")
	}
	for label := range strings.SplitSeq(p.Base, ".") {
		if label == "" && !isIPLiteral(p.Base) {
			return p, errors.New("an empty label")
		}
	}
	if _, err := ParseNetRule(SnapshotDomainRule(raw)); err != nil {
		return p, err
	}
	return p, nil
}

// SnapshotDomainRule writes a profile domain pattern in the snapshot's rule
// syntax (ParseNetRule): "example.com" (exact here) is "=example.com";
// "*.d" and "**.d" mean the same in both.
func SnapshotDomainRule(raw string) string {
	if strings.HasPrefix(raw, "*") {
		return raw
	}
	return "=" + raw
}

// matches reports whether the profile pattern raw names t, through the one
// domain-rule parser (ParseNetRule); "*" names every host.
func matchesTarget(raw string, t NetTarget, denied bool) bool {
	if raw == "*" {
		return !denied
	}
	r, err := ParseNetRule(SnapshotDomainRule(raw))
	return err == nil && r.Matches(t, denied)
}

func isIPLiteral(s string) bool {
	_, err := netip.ParseAddr(strings.Trim(s, "[]"))
	return err == nil
}

// CompiledNetwork is a profile's network rules, resolved.
type CompiledNetwork struct {
	Enabled bool `json:"enabled"`
	// Limited allows only GET, HEAD and OPTIONS.
	Limited bool `json:"limited"`
	// Restricted is set when the profile has domain rules: then only the
	// allow-list passes (empty = nothing). Without rules every public host
	// passes.
	Restricted  bool     `json:"restricted"`
	Allow       []string `json:"allow,omitempty"`
	Deny        []string `json:"deny,omitempty"`
	UnixSockets []string `json:"unix_sockets,omitempty"`
	// AllowLocalhost and AllowPrivateNetworks come from :danger-full-access.
	AllowLocalhost       bool `json:"allow_localhost"`
	AllowPrivateNetworks bool `json:"allow_private_networks"`
}

// NetworkDecision is the answer for one URL, with the rule that made it.
type NetworkDecision struct {
	URL     string `json:"url"`
	Allowed bool   `json:"allowed"`
	// Rule is the pattern that decided ("" when a setting decided).
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason"`
}

// Network decision reasons.
const (
	NetReasonDisabled       = "network_disabled"
	NetReasonBadURL         = "invalid_url"
	NetReasonScheme         = "scheme_not_allowed"
	NetReasonMethod         = "method_not_allowed_in_limited_mode"
	NetReasonDenied         = "host_denied"
	NetReasonSpecialAddress = "local_or_private_address"
	NetReasonNotAllowed     = "host_not_allowed"
	NetReasonAllowed        = "host_allowed"
	NetReasonUnrestricted   = "network_unrestricted"
)

// DecideURL applies the rules to a method and URL: http and https only; a
// limited profile allows GET, HEAD and OPTIONS; deny rules first (deny wins);
// loopback, private, link-local, CGNAT, unspecified and metadata addresses
// and "localhost" names are refused unless an allow rule names that literal
// (or "localhost") exactly; then the allow-list if the profile has domain
// rules. This checks the URL as written: resolved addresses are checked at
// connect time by the enforcing proxy.
func (n *CompiledNetwork) DecideURL(method, raw string) NetworkDecision {
	d := NetworkDecision{URL: raw}
	if !n.Enabled {
		d.Reason = NetReasonDisabled
		return d
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		d.Reason = NetReasonBadURL
		return d
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		d.Reason = NetReasonScheme
		return d
	}
	method = strings.ToUpper(method)
	if method == "" {
		method = "GET"
	}
	if n.Limited && method != "GET" && method != "HEAD" && method != "OPTIONS" {
		d.Reason = NetReasonMethod
		return d
	}
	host, addr, ok := ParseHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if !ok {
		d.Reason = NetReasonBadURL
		return d
	}
	port := DefaultPorts[u.Scheme]
	if ps := u.Port(); ps != "" {
		if n, err := strconv.Atoi(ps); err == nil {
			port = n
		}
	}
	t := NetTarget{Scheme: u.Scheme, Host: host, Port: port, Addr: addr}
	for _, raw := range n.Deny {
		if matchesTarget(raw, t, true) {
			d.Rule, d.Reason = raw, NetReasonDenied
			return d
		}
	}
	if cls := hostClass(host); cls != AddrPublic {
		loopback := cls == AddrLocalhost
		for _, raw := range n.Allow {
			// A literal by its rule; a special name only as the proxy
			// opens one: a localhost name by "localhost", a metadata name
			// by an exact rule, never by a wildcard (the seventy-second
			// review).
			byRule := matchesTarget(raw, t, false) && (addr.IsValid() || (cls == AddrMetadata && !strings.Contains(raw, "*")))
			if raw != "*" && (byRule || (loopback && raw == "localhost")) {
				d.Allowed, d.Rule, d.Reason = true, raw, NetReasonAllowed
				return d
			}
		}
		// Under an allow-list a metadata host needs a rule naming it
		// (allow_private_networks does not open it), as the proxy judges.
		if (loopback && n.AllowLocalhost) || (!loopback && n.AllowPrivateNetworks && !(cls == AddrMetadata && n.Restricted && !slices.Contains(n.Allow, "*"))) {
			d.Allowed, d.Reason = true, NetReasonUnrestricted
			return d
		}
		d.Reason = NetReasonSpecialAddress
		return d
	}
	if !n.Restricted {
		d.Allowed, d.Reason = true, NetReasonUnrestricted
		return d
	}
	for _, raw := range n.Allow {
		if matchesTarget(raw, t, false) {
			d.Allowed, d.Rule, d.Reason = true, raw, NetReasonAllowed
			return d
		}
	}
	d.Reason = NetReasonNotAllowed
	return d
}

// MetadataAddrs are cloud-metadata addresses, never opened by a rule
// that allows private networks, only by one naming the address: AWS, GCP,
// Azure, OpenStack 169.254.169.254; AWS IPv6 fd00:ec2::254; Alibaba
// 100.100.100.200; a container's task role (AWS ECS) 169.254.170.2, a
// pod's identity (EKS Pod Identity) 169.254.170.23 and fd00:ec2::23;
// Tencent 169.254.0.23; Azure's WireServer 168.63.129.16 (a public
// address that hands a VM its extensions' protected settings); GCP's
// IPv6 fd20:ce::254; Scaleway 169.254.42.42 and fd00:42::42; Oracle
// Cloud Classic 192.0.0.192 (the fortieth review found the last five
// missing).
var MetadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("100.100.100.200"),
	netip.MustParseAddr("169.254.170.2"), netip.MustParseAddr("169.254.170.23"), netip.MustParseAddr("fd00:ec2::23"),
	netip.MustParseAddr("169.254.0.23"), netip.MustParseAddr("168.63.129.16"), netip.MustParseAddr("fd20:ce::254"),
	netip.MustParseAddr("169.254.42.42"), netip.MustParseAddr("fd00:42::42"), netip.MustParseAddr("192.0.0.192"),
}

// hostClass classifies host, a name or an IP literal, as the egress proxy
// does (ClassifyName, ClassifyAddr): one definition.
func hostClass(host string) AddrClass {
	if a, err := netip.ParseAddr(host); err == nil {
		return ClassifyAddr(a)
	}
	return ClassifyName(host)
}

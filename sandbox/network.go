package sandbox

import (
	"net/url"
	"strconv"
	"strings"

	"turnstile/domain"
)

// CheckURL checks rawURL against the snapshot's network policy (REFERENCE
// §5): http and https only; the host is trimmed, its trailing dot stripped
// and lower-cased; denied domains first (host_denied); a disabled network is
// network_disabled; localhost names and loopback addresses need
// allow_localhost (localhost_not_allowed); a restricted network needs an allow
// rule (host_not_allowed); private, link-local, CGNAT and cloud-metadata
// addresses need allow_private_networks or an exact allow rule naming the
// address (private_address; a rule naming a host name opens no address it
// resolves to: CheckAddr). Numeric IPv4 forms that resolvers accept ("2130706433",
// "0x7f.1") are read as the address they denote. A host name is checked again
// on its resolved address at connect time by Dialer.
func CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	if s == nil {
		return refuse(CodeNoSnapshot, rawURL, "no security snapshot: every request is refused")
	}
	t, r := parseURLTarget(rawURL)
	if r != nil {
		return r
	}
	if r := checkTarget(&s.Network, t, redactURL(rawURL)); r != nil {
		return r
	}
	return nil
}

// parseURLTarget parses and normalises an http(s) URL.
func parseURLTarget(raw string) (domain.NetTarget, *Refusal) {
	shown := redactURL(raw)
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Opaque != "" {
		return domain.NetTarget{}, refuse(CodeNetworkInvalidURL, shown, "not a valid absolute URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if _, ok := domain.DefaultPorts[scheme]; !ok {
		return domain.NetTarget{}, refuse(CodeNetworkUnsupportedScheme, shown, "only http and https are allowed, not %q", u.Scheme)
	}
	host, ip, ok := domain.ParseHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if !ok {
		return domain.NetTarget{}, refuse(CodeNetworkInvalidURL, shown, "invalid host %q", u.Hostname())
	}
	port := domain.DefaultPorts[scheme]
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return domain.NetTarget{}, refuse(CodeNetworkInvalidURL, shown, "invalid port %q", p)
		}
		port = n
	}
	return domain.NetTarget{Scheme: scheme, Host: host, Port: port, Addr: ip}, nil
}

// redactURL drops the user info and query of a URL for messages (they may
// hold secrets).
func redactURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// checkTarget applies the URL-level rules in the reference's order.
func checkTarget(np *domain.NetworkPolicy, t domain.NetTarget, shown string) *Refusal {
	if rule, ok := matchAny(np.DeniedDomains, t, true); ok {
		return refuse(CodeHostDenied, shown, "host %s is denied by rule %q", t.Host, rule)
	}
	if np.Mode != domain.NetworkEnabled && np.Mode != domain.NetworkRestricted {
		return refuse(CodeNetworkDisabled, shown, "network access is disabled for this turn")
	}
	cls := classifyName(t.Host)
	if t.Addr.IsValid() {
		cls = classifyAddr(t.Addr)
	}
	_, exact := matchExact(np.AllowedDomains, t)
	if cls == classLocalhost && !np.AllowLocalhost && !(np.AllowNamedLoopback && exact && t.Addr.IsValid()) {
		return refuse(CodeLocalhostNotAllowed, shown, "localhost is not allowed for this turn")
	}
	if np.Mode == domain.NetworkRestricted {
		if _, ok := matchAny(np.AllowedDomains, t, false); !ok {
			return refuse(CodeHostNotAllowed, shown, "host %s matches no allowed domain", t.Host)
		}
	}
	if cls == classMetadata && np.Mode == domain.NetworkRestricted && !exact {
		return refuse(CodePrivateAddress, shown, "%s is a %s address; under an allow-list it needs an allow rule naming it (allow_private_networks does not open it)", t.Host, cls)
	}
	if (cls == classPrivate || cls == classMetadata) && !np.AllowPrivateNetworks && !exact {
		return refuse(CodePrivateAddress, shown, "%s is a %s address; it needs allow_private_networks or an allow rule naming that address", t.Host, cls)
	}
	return nil
}

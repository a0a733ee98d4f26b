package sandbox

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"turnstile/domain"
)

// target is the destination of a URL or a connection: scheme (empty at
// connect time), normalised host (a canonical IP string for IP literals), the
// effective port, and the address when the host is an IP literal.
type target struct {
	scheme string
	host   string
	port   int
	ip     netip.Addr
}

var defaultPorts = map[string]int{"http": 80, "https": 443}

// CheckURL checks rawURL against the snapshot's network policy (REFERENCE
// §5): http and https only; the host is trimmed, its trailing dot stripped
// and lower-cased; denied domains first (host_denied); a disabled network is
// network_disabled; localhost names and loopback addresses need
// allow_localhost (localhost_not_allowed); a restricted network needs an allow
// rule (host_not_allowed); private, link-local, CGNAT and cloud-metadata
// addresses need allow_private_networks or an exact "=host" allow rule
// (private_address). Numeric IPv4 forms that resolvers accept ("2130706433",
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
func parseURLTarget(raw string) (target, *Refusal) {
	shown := redactURL(raw)
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Opaque != "" {
		return target{}, refuse(CodeNetworkInvalidURL, shown, "not a valid absolute URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if _, ok := defaultPorts[scheme]; !ok {
		return target{}, refuse(CodeNetworkUnsupportedScheme, shown, "only http and https are allowed, not %q", u.Scheme)
	}
	host, ip, ok := normalizeHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if !ok {
		return target{}, refuse(CodeNetworkInvalidURL, shown, "invalid host %q", u.Hostname())
	}
	port := defaultPorts[scheme]
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return target{}, refuse(CodeNetworkInvalidURL, shown, "invalid port %q", p)
		}
		port = n
	}
	return target{scheme: scheme, host: host, port: port, ip: ip}, nil
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

// normalizeHost applies domain.NormalizeHost and validates the result: an IP
// literal (bracketed IPv6, dotted IPv4, or a numeric IPv4 form inet_aton
// accepts) becomes its canonical string; a name must be ASCII labels of
// letters, digits, '-' and '_' without empty labels.
func normalizeHost(h string, bracketed bool) (string, netip.Addr, bool) {
	host := domain.NormalizeHost(h)
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
	if a, ok := parseInetAton(host); ok {
		return a.String(), a, true
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

// parseInetAton reads the IPv4 forms of inet_aton(3) that resolvers accept:
// one to four parts, each decimal, octal (leading 0) or hex (0x); the last
// part fills the remaining bytes.
func parseInetAton(s string) (netip.Addr, bool) {
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
		if digits == "" && base != 8 {
			return netip.Addr{}, false
		}
		if digits == "" {
			digits = "0"
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

// checkTarget applies the URL-level rules in the reference's order.
func checkTarget(np *domain.NetworkPolicy, t target, shown string) *Refusal {
	if rule, ok := matchAny(np.DeniedDomains, t, true); ok {
		return refuse(CodeHostDenied, shown, "host %s is denied by rule %q", t.host, rule)
	}
	if np.Mode != domain.NetworkEnabled && np.Mode != domain.NetworkRestricted {
		return refuse(CodeNetworkDisabled, shown, "network access is disabled for this turn")
	}
	cls := classifyName(t.host)
	if t.ip.IsValid() {
		cls = classifyAddr(t.ip)
	}
	if cls == classLocalhost && !np.AllowLocalhost {
		return refuse(CodeLocalhostNotAllowed, shown, "localhost is not allowed for this turn")
	}
	if np.Mode == domain.NetworkRestricted {
		if _, ok := matchAny(np.AllowedDomains, t, false); !ok {
			return refuse(CodeHostNotAllowed, shown, "host %s matches no allowed domain", t.host)
		}
	}
	_, exact := matchExact(np.AllowedDomains, t)
	if (cls == classPrivate || cls == classMetadata) && !np.AllowPrivateNetworks && !exact {
		return refuse(CodePrivateAddress, shown, "%s is a %s address; it needs allow_private_networks or an exact =host rule", t.host, cls)
	}
	return nil
}

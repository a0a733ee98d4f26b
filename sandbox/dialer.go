package sandbox

import (
	"net/netip"
	"strconv"
	"strings"

	"turnstile/domain"
)

// CheckAddr is the connect-time check: host is the name (or IP literal) that
// was dialed, ip and port the address the connection is about to reach after
// name resolution. Denied rules are matched on both the name and the
// address; a disabled network refuses everything; a loopback or "this
// network" address, or any address the kernel routes to this host (its
// interfaces' own addresses: a service bound on 0.0.0.0 answers on each),
// needs allow_localhost; a restricted network needs an allow rule for host;
// a private, link-local, CGNAT, documentation or metadata address needs
// allow_private_networks or an exact rule naming that address (REFERENCE
// §10: an allow-list that names the IP literal); an exact rule naming host
// does not open what host resolves to; a localhost name is judged by its
// address too (refused when that is not this host's). Checking the resolved
// address defeats DNS rebinding.
func CheckAddr(s *domain.TurnExecutionSecuritySnapshot, host string, ip netip.Addr, port int) error {
	if s == nil {
		return refuse(CodeNoSnapshot, host, "no security snapshot: every connection is refused")
	}
	np := &s.Network
	ip = ip.WithZone("").Unmap()
	shown := joinHostPort(host, port) + " (" + ip.String() + ")"
	name, literal, ok := domain.ParseHost(host, false)
	if !ok {
		return refuse(CodeNetworkInvalidURL, shown, "invalid host %q", host)
	}
	byName := domain.NetTarget{Host: name, Port: port, Addr: literal}
	byAddr := domain.NetTarget{Host: ip.String(), Port: port, Addr: ip}
	for _, t := range []domain.NetTarget{byName, byAddr} {
		if rule, ok := matchAny(np.DeniedDomains, t, true); ok {
			return refuse(CodeHostDenied, shown, "%s is denied by rule %q", t.Host, rule)
		}
	}
	if np.Mode != domain.NetworkEnabled && np.Mode != domain.NetworkRestricted {
		return refuse(CodeNetworkDisabled, shown, "network access is disabled for this turn")
	}
	cls := classifyAddr(ip)
	if nameCls := classifyName(name); !literal.IsValid() && nameCls != classPublic {
		switch {
		case nameCls != classLocalhost:
			cls = nameCls // a metadata name: at least as strict as its address
		case cls == classPublic:
			// A localhost name stands for this host: one that resolves to
			// another host is refused, whatever rule its name matches.
			if local, err := localRoute(ip); err != nil || !local {
				return refuse(CodeHostNotAllowed, shown, "%s is a localhost name, but it resolves to %s, an address of another host", name, ip)
			}
			cls = classLocalhost
		}
		// A private or metadata address keeps its class: a localhost name
		// does not open it.
	}
	_, exactLit := matchExact(np.AllowedDomains, byAddr)
	exactLit = exactLit && literal == ip // an exact rule names the literal asked for
	if cls != classLocalhost && !np.AllowLocalhost && !exactLit {
		// (An address of this host that the allow-list names as a
		// literal, asked for by it, is the person's choice, as a named
		// 127.0.0.1 is: the sixtieth review. A name resolving to one
		// stays refused.)
		local, err := localRoute(ip)
		if err != nil {
			return refuse(CodeLocalhostNotAllowed, shown, "cannot tell whether %s is an address of this host (%v); localhost is not allowed for this turn", ip, err)
		}
		if local {
			return refuse(CodeLocalhostNotAllowed, shown, "%s is an address of this host; localhost is not allowed for this turn", ip)
		}
	}
	if cls == classLocalhost && !np.AllowLocalhost {
		// A loopback address an exact allow rule names, asked for by
		// that literal (AllowNamedLoopback); never through a name.
		if _, exact := matchExact(np.AllowedDomains, byAddr); !np.AllowNamedLoopback || !exact || literal != ip {
			return refuse(CodeLocalhostNotAllowed, shown, "%s is a local address; localhost is not allowed for this turn", ip)
		}
	}
	if np.Mode == domain.NetworkRestricted {
		if _, ok := matchAny(np.AllowedDomains, byName, false); !ok {
			return refuse(CodeHostNotAllowed, shown, "host %s matches no allowed domain", name)
		}
	}
	if cls == classPrivate || cls == classMetadata {
		_, exactAddr := matchExact(np.AllowedDomains, byAddr)
		if cls == classMetadata && np.Mode == domain.NetworkRestricted && !exactAddr {
			// The cloud's instance credentials: an allow-list opens them by
			// naming the address, never with the private networks.
			return refuse(CodePrivateAddress, shown, "%s resolves to a %s address (%s); under an allow-list it needs an allow rule naming that address (allow_private_networks does not open it)", name, cls, ip)
		}
		if !np.AllowPrivateNetworks && !exactAddr {
			return refuse(CodePrivateAddress, shown, "%s resolves to a %s address (%s); it needs allow_private_networks or an allow rule naming that address", name, cls, ip)
		}
	}
	return nil
}

// joinHostPort is net.JoinHostPort without importing net: this package is
// linked into the lean sandbox helper, which must stay free of net (and of
// the cgo resolver that comes with it).
func joinHostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(port)
	}
	return host + ":" + strconv.Itoa(port)
}

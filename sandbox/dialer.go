package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"turnstile/domain"
)

// CheckAddr is the connect-time check: host is the name (or IP literal) that
// was dialed, ip and port the address the connection is about to reach after
// name resolution. Denied rules are matched on both the name and the
// address; a disabled network refuses everything; a loopback or "this
// network" address needs allow_localhost; a restricted network needs an allow
// rule for host; a private, link-local, CGNAT or metadata address needs
// allow_private_networks or an exact "=host" rule naming host or the address.
// Checking the resolved address defeats DNS rebinding.
func CheckAddr(s *domain.TurnExecutionSecuritySnapshot, host string, ip netip.Addr, port int) error {
	if s == nil {
		return refuse(CodeNoSnapshot, host, "no security snapshot: every connection is refused")
	}
	np := &s.Network
	ip = ip.WithZone("").Unmap()
	shown := net.JoinHostPort(host, strconv.Itoa(port)) + " (" + ip.String() + ")"
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
	if !literal.IsValid() && classifyName(name) != classPublic {
		cls = classifyName(name)
	}
	if cls == classLocalhost && !np.AllowLocalhost {
		return refuse(CodeLocalhostNotAllowed, shown, "%s is a local address; localhost is not allowed for this turn", ip)
	}
	if np.Mode == domain.NetworkRestricted {
		if _, ok := matchAny(np.AllowedDomains, byName, false); !ok {
			return refuse(CodeHostNotAllowed, shown, "host %s matches no allowed domain", name)
		}
	}
	if cls == classPrivate || cls == classMetadata {
		_, exactName := matchExact(np.AllowedDomains, byName)
		_, exactAddr := matchExact(np.AllowedDomains, byAddr)
		if !np.AllowPrivateNetworks && !exactName && !exactAddr {
			return refuse(CodePrivateAddress, shown, "%s resolves to a %s address; it needs allow_private_networks or an exact =host rule", name, cls)
		}
	}
	return nil
}

// Dialer dials TCP connections under a snapshot's network policy. Every
// connection attempt (each address a name resolves to) is re-checked by
// CheckAddr in the dialer's Control hook, after resolution and before the
// connect system call.
type Dialer struct {
	snap *domain.TurnExecutionSecuritySnapshot
	// Base is the dialer used underneath (timeouts, keep-alive, resolver).
	// Its Control and ControlContext are replaced.
	Base net.Dialer
}

// NewDialer returns a Dialer for s with a 30 s connect timeout.
func NewDialer(s *domain.TurnExecutionSecuritySnapshot) *Dialer {
	return &Dialer{snap: s, Base: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
}

// Control returns the net.Dialer Control hook for connections to host (the
// name being dialed): it refuses, with a *Refusal, any address CheckAddr
// refuses.
func (d *Dialer) Control(host string) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		switch network {
		case "tcp", "tcp4", "tcp6":
		default:
			return refuse(CodeNetworkDisabled, address, "only TCP connections are allowed, not %s", network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refuse(CodeNetworkInvalidURL, address, "cannot parse the connect address: %v", err)
		}
		return CheckAddr(d.snap, host, ap.Addr(), int(ap.Port()))
	}
}

// DialContext dials a TCP address ("host:port") with the connect-time check.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, refuse(CodeNetworkDisabled, addr, "only TCP connections are allowed, not %s", network)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, refuse(CodeNetworkInvalidURL, addr, "invalid address: %v", err)
	}
	nd := d.Base
	nd.ControlContext = nil
	nd.Control = d.Control(host)
	return nd.DialContext(ctx, network, addr)
}

// Client returns an *http.Client for downloads and fetches under s: every
// request and every redirect is checked by CheckURL, every connection by
// CheckAddr on its resolved address, and no proxy from the environment is
// used (a proxy would hide the real destination). Refusals come back as
// *url.Error wrapping a *Refusal (errors.As finds it).
func Client(s *domain.TurnExecutionSecuritySnapshot) *http.Client {
	d := NewDialer(s)
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: &checkedTransport{snap: s, next: tr},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return CheckURL(s, req.URL.String())
		},
	}
}

// checkedTransport checks each request's URL before sending it.
type checkedTransport struct {
	snap *domain.TurnExecutionSecuritySnapshot
	next http.RoundTripper
}

func (t *checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil {
		return nil, fmt.Errorf("sandbox: request without a URL")
	}
	if err := CheckURL(t.snap, req.URL.String()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

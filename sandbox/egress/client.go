// Package egress holds turnstile's own outbound HTTP client: every request,
// redirect and connection is checked against a turn's network policy
// (sandbox.CheckURL, sandbox.CheckAddr). It lives apart from package sandbox
// so that the sandbox helper, which links package sandbox, stays free of
// net and net/http (see docs/benchmarks.md).
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"turnstile/domain"
	"turnstile/sandbox"
)

func refuse(code, path, format string, args ...any) *sandbox.Refusal {
	return &sandbox.Refusal{Code: code, Path: path, Message: fmt.Sprintf(format, args...)}
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
			return refuse(sandbox.CodeNetworkDisabled, address, "only TCP connections are allowed, not %s", network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refuse(sandbox.CodeNetworkInvalidURL, address, "cannot parse the connect address: %v", err)
		}
		return sandbox.CheckAddr(d.snap, host, ap.Addr(), int(ap.Port()))
	}
}

// DialContext dials a TCP address ("host:port") with the connect-time check.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, refuse(sandbox.CodeNetworkDisabled, addr, "only TCP connections are allowed, not %s", network)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, refuse(sandbox.CodeNetworkInvalidURL, addr, "invalid address: %v", err)
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
			return sandbox.CheckURL(s, req.URL.String())
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
		return nil, fmt.Errorf("egress: request without a URL")
	}
	if err := sandbox.CheckURL(t.snap, req.URL.String()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

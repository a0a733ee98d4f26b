package egress

import (
	"net/http"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/sandbox"
)

// TestAttack21LocalhostNameOverridesTheAddress: CheckAddr classifies a
// connection by its resolved address, except that a name of class
// localhost ("localhost", "*.localhost") replaces the address's class
// with its own. Under a policy that allows localhost only (the profile's
// "localhost" = "allow", nothing else: allow_localhost and an allow rule
// "localhost", which also matches its subdomains), a name under
// .localhost that resolves anywhere is then judged as loopback: to the
// cloud metadata address, to a private address (neither allowed: no
// allow_private_networks, no rule naming them), or to any public address
// (the allow-list names no other host). The proxy resolves such a name
// through DNS like any other (rooted, so not from /etc/hosts; Go's
// resolver has no special case for .localhost), so whatever answers it (a
// --dns-server, a resolver that rewrites NXDOMAIN, a hosts file) opens the
// network to a localhost-only turn. Wanted: the stricter of the two
// classes (or: a .localhost name must resolve to loopback, else it is
// refused). Control: a .localhost name resolving to 127.0.0.1 reaches a
// loopback service.
func TestAttack21LocalhostNameOverridesTheAddress(t *testing.T) {
	port := greeter(t, "tcp4", "127.0.0.1:0", "loopback-service")
	res := &mapResolver{m: map[string][]netip.Addr{
		"app.localhost":      {netip.MustParseAddr("127.0.0.1")},
		"metadata.localhost": {netip.MustParseAddr("169.254.169.254")},
		"lan.localhost":      {netip.MustParseAddr("198.51.100.7")},
		"out.localhost":      {netip.MustParseAddr("8.8.8.8")},
	}}
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"localhost"}, AllowLocalhost: true}
	j.set("t", np)
	p := NewProxy(j, res)
	p.DialTimeout = 300 * time.Millisecond
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))
	if code, _, body := get(t, c, "http://app.localhost:"+strconv.Itoa(port)+"/"); code != http.StatusOK || body != "loopback-service" {
		t.Fatalf("control: app.localhost (127.0.0.1) under a localhost-only policy: %d %q", code, body)
	}
	// Through the proxy: a private (documentation, never routed) address.
	code, h, _ := get(t, c, "http://lan.localhost:80/")
	if h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
		t.Errorf("lan.localhost → 198.51.100.7 under a policy that allows localhost only: %d %q (%s), want 403 %s: the proxy connected", code, h.Get(HeaderRefusal), h.Get(HeaderRule), sandbox.CodePrivateAddress)
	}
	// The connect-time check itself (not dialled here: the metadata and a
	// public address are real ones).
	s := &domain.TurnExecutionSecuritySnapshot{Network: np}
	for _, name := range []string{"metadata.localhost", "out.localhost"} {
		a := res.m[name][0]
		if err := sandbox.CheckAddr(s, name, a, 80); err == nil {
			t.Errorf("%s → %s under a policy that allows localhost only: CheckAddr allows the connection", name, a)
		}
	}
}

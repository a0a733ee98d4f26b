package egress

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

// TestAttackProfileDomainUnlocksPrivate: in a profile a plain domain
// ("internal.example.test" = "allow") is the exact form, which the profile
// compiler writes as the snapshot rule "=internal.example.test"
// (domain.SnapshotDomainRule). REFERENCE §10 (and CompiledNetwork.DecideURL)
// say private, link-local, CGNAT and metadata addresses are refused unless
// the allow-list names that IP literal (or localhost); but CheckAddr treats
// an exact *name* rule as explicit permission for whatever private or
// metadata address the name resolves to. So any plainly allowed name whose
// DNS the agent can influence (or that rebinds) opens the private network.
// Wanted: private_address. Control: an allow-list that names the IP literal
// reaches the same listener.
func TestAttackProfileDomainUnlocksPrivate(t *testing.T) {
	priv := hostAddr(t, "private")
	network, bind := "tcp4", priv.String()+":0"
	if priv.Is6() {
		network, bind = "tcp6", "["+priv.String()+"]:0"
	}
	port := strconv.Itoa(greeter(t, network, bind, "private-service"))
	name := "internal.example.test"
	res := &mapResolver{m: map[string][]netip.Addr{name: {priv}}}

	// The profile [network.domains] "internal.example.test" = "allow", as
	// profileNetworkPolicy compiles it.
	allow := domain.SnapshotDomainRule(name)
	cn := domain.CompiledNetwork{Enabled: true, Restricted: true, Allow: []string{name}}
	if d := cn.DecideURL("GET", "http://["+priv.String()+"]:"+port+"/"); d.Allowed && priv.Is6() {
		t.Fatalf("the profile itself allows the private literal without naming it: %+v", d)
	}
	j := newSnapJudge()
	// Localhost is allowed: the private address is this machine's own, and
	// what is tested is the private-address rule.
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{allow}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))

	code, h, body := get(t, c, "http://"+name+":"+port+"/")
	if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
		t.Errorf("%s (allowed as %q) → private %s: %d %q body %q; want 403 private_address (only an allow-list naming the IP literal opens a private address)", name, allow, priv, code, h.Get(HeaderRefusal), body)
	}

	// Control: the allow-list names the literal; the same listener answers.
	lit := priv.String()
	if priv.Is6() {
		lit = "[" + lit + "]"
	}
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{domain.SnapshotDomainRule(lit)}, AllowLocalhost: true})
	if code, _, body := get(t, c, "http://"+net.JoinHostPort(priv.String(), port)+"/"); code != http.StatusOK || body != "private-service" {
		t.Fatalf("control, the literal allowed: %d %q", code, body)
	}
}

package egress

import (
	"net/http"
	"net/netip"
	"strconv"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

// TestAttack60NamedOwnAddressRefused (sixtieth review, low, a false
// deny): REFERENCE §10 — loopback, private, link-local, CGNAT and
// metadata addresses "are refused unless an allow-list names that IP
// literal or localhost"; the fifty-sixth review's fix (4728bbe,
// AllowNamedLoopback) opens a loopback literal the allow-list names,
// asked for by that literal. A profile that names this machine's own
// interface address instead (its LAN address, where a dev server bound on
// 0.0.0.0 is reached, the address a person types from another machine)
// is refused it all the same, localhost_not_allowed: CheckAddr
// (sandbox/dialer.go) refuses every address localRoute finds local
// whenever AllowLocalhost is off, before the exact rule is read, and
// AllowNamedLoopback is set only for a literal netip calls loopback. The
// profile's own decision (CompiledNetwork.DecideURL) answers allowed,
// naming the rule.
//
// Fix: in CheckAddr, an address of this host asked for by the literal an
// exact allow rule names passes the local-route check as a named loopback
// literal does (literal == ip, matchExact on byAddr), and
// profileNetworkPolicy sets the flag for any literal it names (or the
// check does not depend on it for a non-loopback literal); a name
// resolving to that address stays refused.
//
// Control: the same profile shape naming 127.0.0.1 reaches a service on
// 127.0.0.1 through the proxy. Attack: naming this machine's own address
// must reach the service bound on every interface at that address.
func TestAttack60NamedOwnAddressRefused(t *testing.T) {
	self := hostAddr(t, "any")
	// A service bound to every interface, as dev servers often are.
	port := greeter(t, "tcp4", "0.0.0.0:0", "host-service")
	if self.Is6() {
		port = greeter(t, "tcp6", "[::]:0", "host-service")
	}
	lport := greeter(t, "tcp4", "127.0.0.1:0", "loopback-service")
	ws := t.TempDir()
	policy := func(lit string) (domain.NetworkPolicy, *domain.CompiledProfile) {
		on := true
		set := domain.ProfileSet{"p": {Name: "p", Extends: domain.BuiltinWorkspace,
			Network: domain.ProfileNetwork{Enabled: &on, Domains: map[string]domain.DomainAccess{lit: domain.DomainAllow}}}}
		cp, err := domain.CompileProfile(set, "p", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws})
		if err != nil {
			t.Fatal(err)
		}
		return s.Network, cp
	}
	host := self.String()
	if self.Is6() {
		host = "[" + host + "]"
	}
	lo, _ := policy("127.0.0.1")
	own, cp := policy(host)

	j := newSnapJudge()
	j.set("lo", lo)
	j.set("own", own)
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{}})
	addr := startProxy(t, p)

	// Control: the named loopback literal.
	if code, h, body := get(t, proxyClient(p.ProxyURL(addr, "lo")), "http://127.0.0.1:"+strconv.Itoa(lport)+"/"); code != http.StatusOK || body != "loopback-service" {
		t.Fatalf("control: a profile naming 127.0.0.1 is refused it: %d %s %q", code, h.Get(HeaderRefusal), body)
	}
	u := "http://" + host + ":" + strconv.Itoa(port) + "/"
	if d := cp.Network.DecideURL("GET", u); !d.Allowed {
		t.Fatalf("control: the profile's own decision refuses %s: %+v", u, d)
	}
	// Attack.
	code, h, body := get(t, proxyClient(p.ProxyURL(addr, "own")), u)
	if code != http.StatusOK || body != "host-service" {
		t.Errorf("a profile naming this machine's address %s is refused %s: %d %s %q (the profile's decision allows it)", self, u, code, h.Get(HeaderRefusal), body)
	}
	if h.Get(HeaderRefusal) == sandbox.CodeLocalhostNotAllowed {
		t.Logf("refused as %s: the local-route check ran before the exact rule", sandbox.CodeLocalhostNotAllowed)
	}
}

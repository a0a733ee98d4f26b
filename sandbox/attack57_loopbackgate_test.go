package sandbox

import (
	"net/netip"
	"testing"

	"turnstile/domain"
)

// TestAttack57NamedLoopbackLiteralOpensEveryLoopback (fifty-seventh
// review, medium): the fifty-sixth review's false deny was fixed by
// turning the whole localhost gate on when a profile's allow-list names a
// loopback literal (domain/profile_snapshot.go profileNetworkPolicy:
// `addr.IsLoopback() … p.AllowLocalhost = true`), on the promise that "the
// allow rule still picks the hosts, so 127.0.0.1 opens neither ::1 nor a
// localhost name". The allow rule picks the host by its NAME only
// (CheckAddr: matchAny(np.AllowedDomains, byName)); the address a name
// resolves to is judged by the gate alone (`cls == classLocalhost &&
// !np.AllowLocalhost`, and the localRoute check for this host's own
// interface addresses is skipped when AllowLocalhost is on). So a profile
// that allows 127.0.0.1 (a dev server) and any other name the agent can
// make resolve (a wildcard over a domain it controls, a rebinding name,
// nip.io-style names) now reaches EVERY loopback address and port: ::1,
// 127.0.0.53, a service bound on 127.0.0.2 — all refused
// localhost_not_allowed before the fix, and refused by the profile's own
// decision (CompiledNetwork.DecideURL: a special address needs an allow rule
// naming that literal) — and this host's own interface addresses.
//
// Control: the same profile without the 127.0.0.1 entry refuses
// rebind.example.test resolving to 127.0.0.2 and ::1; with it, 127.0.0.1
// itself is allowed. Attack: with it, rebind.example.test resolving to
// 127.0.0.2 or ::1 must still be refused.
func TestAttack57NamedLoopbackLiteralOpensEveryLoopback(t *testing.T) {
	snap := func(domains map[string]domain.DomainAccess) *domain.TurnExecutionSecuritySnapshot {
		_, s := domainsProfile(t, domains)
		return s
	}
	names := snap(map[string]domain.DomainAccess{"*.example.test": domain.DomainAllow})
	both := snap(map[string]domain.DomainAccess{"*.example.test": domain.DomainAllow, "127.0.0.1": domain.DomainAllow})

	other := []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("::1")}
	// Controls.
	for _, a := range other {
		if err := CheckAddr(names, "rebind.example.test", a, 8080); err == nil {
			t.Fatalf("control: without the literal, rebind.example.test -> %s was allowed", a)
		}
	}
	if err := CheckAddr(both, "127.0.0.1", netip.MustParseAddr("127.0.0.1"), 8080); err != nil {
		t.Fatalf("control: the named literal 127.0.0.1 is refused: %v", err)
	}
	if err := CheckAddr(both, "rebind.example.test", netip.MustParseAddr("93.184.216.34"), 443); err != nil {
		t.Fatalf("control: an allowed name at a public address is refused: %v", err)
	}
	// Attack.
	for _, a := range other {
		if err := CheckAddr(both, "rebind.example.test", a, 8080); err == nil {
			t.Errorf("an allow-list naming 127.0.0.1 lets rebind.example.test reach %s, a loopback address no rule names", a)
		}
	}
}

package sandbox

import (
	"net/netip"
	"testing"

	"turnstile/domain"
)

// TestAttack57BracketedLoopbackLiteralRefused (fifty-seventh review, low,
// a false deny): the fifty-sixth review's fix opens a loopback literal an
// allow-list names by parsing each allow entry with ParseHost(a, false)
// (domain/profile_snapshot.go profileNetworkPolicy). A profile may write
// the IPv6 loopback bracketed, "[::1]" — the pattern parser takes it
// (ParseNetRule strips the brackets; the snapshot's rule "=[::1]" matches
// ::1), and the profile's own decision answers host_allowed for
// http://[::1]:3000/ (CompiledNetwork.DecideURL) — but ParseHost("[::1]",
// false) does not strip brackets, so AllowLocalhost stays off and the
// proxy's connect-time check refuses ::1 localhost_not_allowed. The
// profile says allowed, `turnstile profiles --url` says allowed, the
// command is refused.
//
// Control: the same address written "::1" is allowed. Attack: "[::1]"
// must be too.
func TestAttack57BracketedLoopbackLiteralRefused(t *testing.T) {
	snap := func(key string) (*domain.TurnExecutionSecuritySnapshot, *domain.CompiledProfile) {
		cp, s := domainsProfile(t, map[string]domain.DomainAccess{key: domain.DomainAllow})
		return s, cp
	}
	loop := netip.MustParseAddr("::1")
	plain, _ := snap("::1")
	if err := CheckAddr(plain, "::1", loop, 3000); err != nil {
		t.Fatalf("control: an allow-list naming ::1 is refused it: %v", err)
	}
	br, cp := snap("[::1]")
	if d := cp.Network.DecideURL("GET", "http://[::1]:3000/"); !d.Allowed {
		t.Fatalf("the profile's own decision refuses [::1]: %+v", d)
	}
	if err := CheckAddr(br, "::1", loop, 3000); err != nil {
		t.Errorf("an allow-list naming [::1] is allowed by the profile's decision but refused by the proxy: %v", err)
	}
}

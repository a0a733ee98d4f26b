package domain

import (
	"slices"
	"testing"
)

// TestAttack176UntilGrantedKeepsItsRules: a network disabled until granted
// keeps the rules it would be granted under, and Approvable opens it to
// them (the hundred-and-seventy-sixth review, at the domain level; the
// end-to-end tests are in tests/attack176_*).
func TestAttack176UntilGrantedKeepsItsRules(t *testing.T) {
	table := NetworkPolicy{Mode: NetworkDisabled}
	profile := NetworkPolicy{Mode: NetworkRestricted, AllowedDomains: []string{"=docs.example.org"}, DeniedDomains: []string{"exfil.example.com"}}
	child := IntersectNetwork(table, profile)
	if child.Mode != NetworkDisabled || child.Locked || !slices.Equal(child.AllowedDomains, profile.AllowedDomains) {
		t.Fatalf("a mode's disabled network under a restricted one: %+v, want disabled, not locked, with the allow-list", child)
	}
	s := TurnExecutionSecuritySnapshot{Network: child}
	if a := s.Approvable().Network; a.Mode != NetworkRestricted || !slices.Equal(a.AllowedDomains, profile.AllowedDomains) || !slices.Equal(a.DeniedDomains, profile.DeniedDomains) {
		t.Errorf("Approvable opened it to %+v, want restricted to the list", a)
	}
	// Kept through a second intersection (a grandchild).
	if g := IntersectNetwork(child, table); !slices.Equal(g.AllowedDomains, profile.AllowedDomains) || g.Locked {
		t.Errorf("a grandchild's network: %+v", g)
	}
	// Two lists that share nothing can grant no host: locked.
	other := NetworkPolicy{Mode: NetworkRestricted, AllowedDomains: []string{"=other.example.net"}}
	if n := IntersectNetwork(child, other); n.Mode != NetworkDisabled || !n.Locked {
		t.Errorf("disjoint lists: %+v, want disabled and locked", n)
	}
	// A profile's network that is off keeps its denies, list and methods.
	off := profileNetworkOff(&CompiledNetwork{Restricted: true, Allow: []string{"docs.example.org"}, Deny: []string{"exfil.example.com"}, Limited: true})
	if off.Mode != NetworkDisabled || off.Locked || len(off.AllowedDomains) != 1 || len(off.DeniedDomains) != 1 || len(off.AllowedMethods) != 3 {
		t.Errorf("a profile's network off: %+v", off)
	}
	if o := profileNetworkOff(&CompiledNetwork{Restricted: true, Deny: []string{"exfil.example.com"}}); !o.Locked {
		t.Errorf("a profile's network off whose list allows nothing: %+v, want locked", o)
	}
	// Controls: with no list anywhere, disabled until granted opens to
	// enabled, as before; a locked network stays shut.
	if a := (&TurnExecutionSecuritySnapshot{Network: IntersectNetwork(table, NetworkPolicy{Mode: NetworkEnabled})}).Approvable().Network; a.Mode != NetworkEnabled || len(a.AllowedDomains) != 0 {
		t.Errorf("control: a disabled network with no list opens to %+v, want enabled", a)
	}
	if a := (&TurnExecutionSecuritySnapshot{Network: NetworkPolicy{Mode: NetworkDisabled, Locked: true}}).Approvable().Network; a.Mode != NetworkDisabled {
		t.Errorf("control: a locked network opens to %+v", a)
	}
	if o := profileNetworkOff(&CompiledNetwork{Restricted: true, Allow: []string{"*"}, Deny: []string{"exfil.example.com"}}); o.Locked || len(o.AllowedDomains) != 0 {
		t.Errorf("control: a profile's network off allowing \"*\": %+v, want no list and not locked", o)
	}
}

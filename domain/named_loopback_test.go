package domain

import "testing"

// TestNamedLoopbackIsItsOwnGate: a profile's allow-list naming a loopback
// literal ("127.0.0.1", "[::1]") sets AllowNamedLoopback, not the whole
// localhost gate; a cap or a parent without it takes it away, and a change
// that adds it is no narrowing. Controls: "localhost" still sets
// AllowLocalhost, and a public literal sets neither.
func TestNamedLoopbackIsItsOwnGate(t *testing.T) {
	policy := func(allow ...string) NetworkPolicy {
		var cp CompiledProfile
		cp.Network.Enabled, cp.Network.Restricted, cp.Network.Allow = true, true, allow
		return profileNetworkPolicy(&cp)
	}
	for _, lit := range []string{"127.0.0.1", "[::1]", "::1"} {
		if p := policy(lit); !p.AllowNamedLoopback || p.AllowLocalhost {
			t.Errorf("%s named: %+v", lit, p)
		}
	}
	if p := policy("localhost"); !p.AllowLocalhost {
		t.Errorf("control: localhost named: %+v", p)
	}
	if p := policy("93.184.216.34"); p.AllowNamedLoopback || p.AllowLocalhost {
		t.Errorf("control: a public literal: %+v", p)
	}
	named, plain := policy("127.0.0.1"), policy("93.184.216.34")
	if got := IntersectNetwork(named, plain); got.AllowNamedLoopback {
		t.Errorf("the intersection with a policy without it kept it: %+v", got)
	}
	if !networkNarrows(&named, &plain) {
		t.Error("dropping AllowNamedLoopback is not a narrowing")
	}
	if !networkBroader(named, plain) {
		t.Error("a cap without AllowNamedLoopback does not find one with it broader")
	}
}

package domain

import (
	"slices"
	"testing"
)

// TestNamedLoopbackLiteralOpensItAlone: an allow-list that names a
// loopback literal opens it (AllowLocalhost), and the allow rule still
// picks the hosts: the snapshot's list names 127.0.0.1 alone, not
// "localhost". Control: an allow-list of every host ("*") with the literal
// does not turn the localhost gate off; neither does a public literal.
func TestNamedLoopbackLiteralOpensItAlone(t *testing.T) {
	policy := func(allow ...string) NetworkPolicy {
		var cp CompiledProfile
		cp.Network.Enabled, cp.Network.Restricted, cp.Network.Allow = true, true, allow
		return profileNetworkPolicy(&cp)
	}
	if p := policy("127.0.0.1"); !p.AllowLocalhost || p.Mode != NetworkRestricted || slices.Contains(p.AllowedDomains, "localhost") || len(p.AllowedDomains) != 1 {
		t.Errorf("127.0.0.1 named: %+v", p)
	}
	if p := policy("::1"); !p.AllowLocalhost {
		t.Errorf("::1 named: %+v", p)
	}
	if p := policy("*", "127.0.0.1"); p.AllowLocalhost {
		t.Errorf("control: every host and the literal turned the localhost gate off: %+v", p)
	}
	if p := policy("93.184.216.34"); p.AllowLocalhost {
		t.Errorf("control: a public literal turned the localhost gate off: %+v", p)
	}
}

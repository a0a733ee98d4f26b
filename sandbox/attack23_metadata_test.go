package sandbox

import (
	"net/netip"
	"testing"

	"turnstile/domain"
)

// TestAttack23MetadataOtherEndpoints: the twenty-first review's fix opens
// a cloud metadata address under an allow-list only by a rule naming it,
// never by allow_private_networks. But metadataAddrs knows 169.254.169.254,
// fd00:ec2::254 and 100.100.100.200 only: the other credential endpoints
// of the same clouds are private addresses to it, opened by
// allow_private_networks to any listed name that resolves there, and so is
// the metadata address itself written in a 6to4 or local-use NAT64 form
// (classified private, not metadata). AWS ECS serves the task role's
// credentials at 169.254.170.2 (/v2/credentials/…), EKS Pod Identity at
// 169.254.170.23 and fd00:ec2::23, Tencent Cloud its metadata at
// 169.254.0.23. Wanted: each is a metadata address. Control: a listed
// name resolving to a LAN address, and the metadata address itself,
// behave as before.
func TestAttack23MetadataOtherEndpoints(t *testing.T) {
	lan := &domain.TurnExecutionSecuritySnapshot{Network: domain.NetworkPolicy{Mode: domain.NetworkRestricted,
		AllowedDomains: []string{"**.example.test"}, AllowPrivateNetworks: true}}
	check := func(addr string) string {
		return refusalCode(CheckAddr(lan, "svc.example.test", netip.MustParseAddr(addr), 80))
	}
	if got := check("10.1.2.3"); got != "allowed" {
		t.Fatalf("control: a listed name resolving to a LAN address: %s", got)
	}
	if got := check("169.254.169.254"); got != CodePrivateAddress {
		t.Fatalf("control: a listed name resolving to 169.254.169.254: %s", got)
	}
	for _, c := range []struct{ what, addr string }{
		{"AWS ECS task credentials", "169.254.170.2"},
		{"EKS Pod Identity", "169.254.170.23"},
		{"EKS Pod Identity (IPv6)", "fd00:ec2::23"},
		{"Tencent Cloud metadata", "169.254.0.23"},
		{"169.254.169.254 in 6to4", "2002:a9fe:a9fe::1"},
		{"169.254.169.254 in local-use NAT64", "64:ff9b:1::a9fe:a9fe"},
	} {
		if got := check(c.addr); got != CodePrivateAddress {
			t.Errorf("%s: a listed name resolving to %s under allow_private_networks: %s, want %s (a metadata address needs a rule naming it)", c.what, c.addr, got, CodePrivateAddress)
		}
	}
}

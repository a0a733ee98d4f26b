package sandbox

import (
	"errors"
	"net/netip"
	"testing"

	"turnstile/domain"
)

// TestMetadataNeedsARuleNamingIt: under an allow-list, a cloud metadata
// address (the instance's credentials) is opened only by a rule naming it,
// not by allow_private_networks, which a profile sets to reach a LAN: at
// connect time (a name of the list resolving to 169.254.169.254) and at
// decision time (a metadata name matched by a rule for it and its
// subdomains). The controls: a private
// address is opened by allow_private_networks; the literal opens with a
// rule naming it; a network without an allow-list (full access) reaches it.
func TestMetadataNeedsARuleNamingIt(t *testing.T) {
	snap := func(mode domain.NetworkMode, rules ...string) *domain.TurnExecutionSecuritySnapshot {
		return &domain.TurnExecutionSecuritySnapshot{Network: domain.NetworkPolicy{Mode: mode, AllowedDomains: rules, AllowPrivateNetworks: true}}
	}
	lan := snap(domain.NetworkRestricted, "**.example.test", "metadata.google.internal")
	meta, private := netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("10.1.2.3")
	for _, c := range []struct {
		what, got, want string
	}{
		{"a listed name resolving to the metadata address", refusalCode(CheckAddr(lan, "meta.example.test", meta, 80)), CodePrivateAddress},
		{"a metadata name the list names (not by address)", refusalCode(CheckURL(lan, "http://metadata.google.internal/computeMetadata/v1/")), CodePrivateAddress},
		{"control: a listed name resolving to a private address", refusalCode(CheckAddr(lan, "db.example.test", private, 5432)), "allowed"},
		{"control: the metadata address with a rule naming it", refusalCode(CheckAddr(snap(domain.NetworkRestricted, "**.example.test", "169.254.169.254"), "169.254.169.254", meta, 80)), "allowed"},
		{"control: the metadata name with an exact rule", refusalCode(CheckURL(snap(domain.NetworkRestricted, "=metadata.google.internal"), "http://metadata.google.internal/computeMetadata/v1/")), "allowed"},
		{"control: no allow-list (full access)", refusalCode(CheckAddr(snap(domain.NetworkEnabled), "meta.example.test", meta, 80)), "allowed"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.what, c.got, c.want)
		}
	}
}

// refusalCode is err's refusal code, "allowed" for none, or the error.
func refusalCode(err error) string {
	var rf *Refusal
	if errors.As(err, &rf) {
		return rf.Code
	}
	if err != nil {
		return err.Error()
	}
	return "allowed"
}

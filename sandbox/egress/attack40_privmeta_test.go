package egress

import (
	"net/http"
	"net/netip"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

// TestAttack40MetadataOpenedByPrivateNetworks: under an allow-list, a cloud
// metadata address is opened only by a rule naming it exactly, never by
// allow_private_networks (README, "Each connection is judged"). The list
// of metadata addresses (sandbox/netrules.go's metadataAddrs) misses
// Google Cloud's IPv6 metadata server, fd20:ce::254 (what an IPv6-only GCE
// VM asks for its service account's tokens), and Scaleway's, 169.254.42.42
// (and fd00:42::42); Oracle Cloud Classic's 192.0.0.192 is missing too.
// Each falls in a private range (ULA, link-local), so where the turn
// allows private networks, an allowed name that resolves to one reaches
// the instance's credentials, while the same name resolving to
// 169.254.169.254 is refused.
//
// The test serves HTTP on 169.254.42.42 and on fd20:ce::254, each in a
// network namespace of its own behind a veth pair (another host's
// address, as the metadata server is to a VM), and asks the proxy for
// names under **.allowed.test that resolve to them, with
// allow_private_networks.
//
// Fixed would look like: fd20:ce::254, 169.254.42.42, fd00:42::42 and
// 192.0.0.192 join metadataAddrs (and domain's specialHost list).
//
// Severity: low (it needs allow_private_networks and an allowed name
// resolving to the address, and a VM of that cloud).
//
// Controls: an allowed name resolving to 169.254.169.254 is refused
// private_address with allow_private_networks (the metadata class holds);
// an allow rule naming each address reaches its server (the setup routes,
// and such a rule keeps opening it after a fix).
func TestAttack40MetadataOpenedByPrivateNetworks(t *testing.T) {
	scw, gcp := netip.MustParseAddr("169.254.42.42"), netip.MustParseAddr("fd20:ce::254")
	serveRouted(t, "r40scw", scw, 80, "scaleway metadata")
	serveRouted(t, "r40gcp", gcp, 80, "gce metadata v6")

	res := &mapResolver{m: map[string][]netip.Addr{
		"scw.allowed.test":  {scw},
		"gcp.allowed.test":  {gcp},
		"imds.allowed.test": {netip.MustParseAddr("169.254.169.254")},
	}}
	j := newSnapJudge()
	j.set("named", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.allowed.test"}, AllowPrivateNetworks: true})
	j.set("literal", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"=169.254.42.42", "=[fd20:ce::254]"}})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	named, literal := proxyClient(p.ProxyURL(addr, "named")), proxyClient(p.ProxyURL(addr, "literal"))

	if code, h, _ := get(t, named, "http://imds.allowed.test/"); code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
		t.Fatalf("control: an allowed name resolving to 169.254.169.254 with allow_private_networks: %d %q, want 403 private_address", code, h.Get(HeaderRefusal))
	}
	for u, body := range map[string]string{"http://169.254.42.42/": "scaleway metadata", "http://[fd20:ce::254]/": "gce metadata v6"} {
		if code, h, got := get(t, literal, u); code != http.StatusOK || got != body {
			t.Fatalf("control: a rule naming the address does not reach %s: %d %q %q", u, code, h.Get(HeaderRefusal), got)
		}
	}
	for name, a := range map[string]netip.Addr{"scw.allowed.test": scw, "gcp.allowed.test": gcp} {
		code, h, body := get(t, named, "http://"+name+"/")
		if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
			t.Errorf("%s → %s (a cloud metadata server) under **.allowed.test with allow_private_networks: %d %q %q; want 403 private_address, as 169.254.169.254: allow_private_networks opened a metadata address", name, a, code, h.Get(HeaderRefusal), body)
		}
	}
}

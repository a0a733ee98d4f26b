package sandbox

import (
	"testing"
)

// TestAttack65ExplainAllowsMetadataNames (sixty-fifth review, low: the
// explanation shows a wider profile than is enforced, what 1f2a260 set out
// to end): the profile's decision (CompiledNetwork.DecideURL,
// `turnstile profiles explain`, the explain endpoint for a profile) now
// classifies addresses with the proxy's classifier (ClassifyAddr), but
// host names still only by "localhost"/".localhost" (specialHost,
// domain/profile_network.go). The enforcement classifies the cloud
// metadata names too (classifyName, sandbox/netrules.go: metadataNames,
// "metadata.google.internal" and "metadata.goog") as cloud-metadata,
// refused without allow_private_networks or an exact rule naming the
// address. Under an open network (no rules) DecideURL answers
// http://metadata.google.internal/ allowed (network_unrestricted) while
// CheckURL (and the proxy's CheckAddr, which keeps a metadata name's
// class) refuses it private_address.
//
// Fix: one host classifier in domain (names and addresses): move
// metadataNames and classifyName next to ClassifyAddr, and have
// specialHost read it, so DecideURL refuses a metadata name the way it
// refuses 169.254.169.254 (named only by an exact literal rule).
//
// Control: the metadata address itself is refused by both. Attack: the
// metadata names must be refused by the explanation as by enforcement.
func TestAttack65ExplainAllowsMetadataNames(t *testing.T) {
	cp, s := domainsProfile(t, nil)
	// Control.
	u := "http://169.254.169.254/latest/meta-data/"
	if d := cp.Network.DecideURL("GET", u); d.Allowed || CheckURL(s, u) == nil {
		t.Fatalf("control: %s: explained %+v, enforced %v", u, d, CheckURL(s, u))
	}
	// Attack.
	for _, u := range []string{"http://metadata.google.internal/computeMetadata/v1/", "http://metadata.goog/computeMetadata/v1/"} {
		err := CheckURL(s, u)
		if err == nil {
			t.Fatalf("enforcement allows %s", u)
		}
		if d := cp.Network.DecideURL("GET", u); d.Allowed {
			t.Errorf("the profile's decision allows %s (%s) while enforcement refuses it: %v", u, d.Reason, err)
		}
	}
}

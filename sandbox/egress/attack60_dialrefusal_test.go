package egress

import (
	"context"
	"net/http"
	"net/netip"
	"sync"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

// refusalJudge is snapJudge with a Refuser: it notes the refusals the
// proxy records itself (EngineJudge.Refuse appends them to the turn as
// decision_denied events).
type refusalJudge struct {
	*snapJudge
	rmu     sync.Mutex
	refused []string
}

func (j *refusalJudge) Refuse(_ context.Context, turnID, rawURL, method string, v Verdict) error {
	j.rmu.Lock()
	defer j.rmu.Unlock()
	j.refused = append(j.refused, v.Code+" "+method+" "+rawURL)
	return nil
}

func (j *refusalJudge) refusals() []string {
	j.rmu.Lock()
	defer j.rmu.Unlock()
	return append([]string(nil), j.refused...)
}

// TestAttack60AddressRefusalNotRecorded (sixtieth review, low, an audit
// gap): since the fifty-sixth review the proxy's own refusals are
// decision_denied events on the turn (Proxy.refused → Refuser), "as the
// judge's are". One refusal is not: the connect-time check of the
// addresses a name resolves to. proxy.go serve asks the judge about the
// name (decision_allowed, recorded — and batched, so later connections to
// the origin record nothing more), then dial refuses the resolved address
// (CheckAddr: a metadata, private or loopback address, DNS rebinding) and
// serve answers deny(w, verdictOf(err)) without p.refused. No tunnel is
// made either, so no egress.traffic summary counts it. A command probing
// 169.254.169.254 through an allowed name it controls (a rebinding name,
// a wildcard record) leaves, on the turn, one decision_allowed for that
// name and nothing else, however many times it tries: the person reading
// the audit sees an allowed fetch, not an attempt at the instance's
// credentials.
//
// Fix: in serve, record dial's refusals (a *sandbox.Refusal) with
// p.refused, as the method and tunnel refusals are (within the quota, as
// Refuse already is).
//
// Control: a method override refused under a limited network is recorded
// through the Refuser. Attack: an allowed name resolving to the metadata
// address is refused (private_address) and must be recorded too.
func TestAttack60AddressRefusalNotRecorded(t *testing.T) {
	j := &refusalJudge{snapJudge: newSnapJudge()}
	j.set("lim", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowedMethods: []string{"GET", "HEAD", "OPTIONS"}})
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}})
	res := &mapResolver{m: map[string][]netip.Addr{"rebind.example.test": {netip.MustParseAddr("169.254.169.254")}}}
	p := NewProxy(j, res)
	addr := startProxy(t, p)

	// Control: the proxy's own refusal of a method is recorded.
	req, _ := http.NewRequest("GET", "http://rebind.example.test/", nil)
	req.Header.Set("X-HTTP-Method-Override", "DELETE")
	resp, err := proxyClient(p.ProxyURL(addr, "lim")).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(j.refusals()) != 1 {
		t.Fatalf("control: a method override under a limited network: %d, refusals recorded %q", resp.StatusCode, j.refusals())
	}

	// Attack: the allowed name resolves to the metadata address.
	for range 3 {
		code, h, _ := get(t, proxyClient(p.ProxyURL(addr, "t")), "http://rebind.example.test/latest/meta-data/")
		if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
			t.Fatalf("rebind.example.test -> 169.254.169.254: %d %q (want 403 private_address)", code, h.Get(HeaderRefusal))
		}
	}
	if got := j.refusals(); len(got) < 2 {
		t.Errorf("three connections refused at connect time (rebind.example.test -> 169.254.169.254, private_address) left no refusal on the turn: recorded %q; the judge decided %d time(s), an allow, the other connections batched on it", got, j.decisions)
	}
}

package egress

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"testing"

	"turnstile/domain"
)

// principalJudge is snapJudge that records who each decision is made for
// (ActorOf, as EngineJudge records it) and refuses every decision made
// for a principal in over (as EngineJudge.Admit refuses one past its
// byte quota).
type principalJudge struct {
	*snapJudge
	mu   sync.Mutex
	by   []string
	over map[string]bool
}

func (j *principalJudge) Decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error) {
	by := ActorOf(ctx)
	j.mu.Lock()
	j.by = append(j.by, by.Name+" "+rawURL)
	over := j.over[by.Name]
	j.mu.Unlock()
	if over {
		return Verdict{Code: "quota_exceeded", Rule: by.Name + " is past its byte quota"}, nil
	}
	return j.snapJudge.Decide(ctx, turnID, rawURL, method)
}

// TestAttack21BatchSharedAcrossPrincipals: the proxy's URL names its
// principal so that "its connections' decisions are recorded as by's, and
// so held against by's byte quota" (ProxyURLFor), and a runtime may take
// the proxy URL of a turn another credential started. But the batch of
// allowed origins is kept per turn and version only: once one principal's
// connection to an origin is allowed, every other principal's connections
// to it reuse that decision. No decision is ever made, or recorded, for
// them: the audit names only the first principal for the origin, and a
// principal whose decisions are refused (past its byte quota: Admit)
// still connects. Wanted: the batch keyed by the principal (and its
// credential) too, so that each principal's first connection to an
// origin is decided, and recorded, as its own. Control: the second
// principal's connection to an origin nobody decided is refused, and the
// first principal's own connections are decided once.
func TestAttack21BatchSharedAcrossPrincipals(t *testing.T) {
	port := greeter(t, "tcp4", "127.0.0.1:0", "ok")
	res := &mapResolver{m: map[string][]netip.Addr{
		"shared.example.test": {netip.MustParseAddr("127.0.0.1")}, "fresh.example.test": {netip.MustParseAddr("127.0.0.1")}}}
	j := &principalJudge{snapJudge: newSnapJudge(), over: map[string]bool{"agent": true}}
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	victim := proxyClient(p.ProxyURLFor(addr, "t", domain.Actor{Name: "victim", Role: domain.RoleRuntime}, "cred-v"))
	agent := proxyClient(p.ProxyURLFor(addr, "t", domain.Actor{Name: "agent", Role: domain.RoleRuntime}, "cred-a"))
	shared := fmt.Sprintf("http://shared.example.test:%d/", port)
	for range 2 {
		if code, _, body := get(t, victim, shared); code != http.StatusOK || body != "ok" {
			t.Fatalf("control: the victim's GET: %d %q", code, body)
		}
	}
	if code, h, _ := get(t, agent, fmt.Sprintf("http://fresh.example.test:%d/", port)); code != http.StatusForbidden || h.Get(HeaderRefusal) != "quota_exceeded" {
		t.Fatalf("control: the agent's decision past its quota: %d %q", code, h.Get(HeaderRefusal))
	}
	code, _, body := get(t, agent, shared)
	j.mu.Lock()
	by := append([]string(nil), j.by...)
	j.mu.Unlock()
	if n := len(by); n < 2 || by[0] != "victim "+shared+"" {
		t.Fatalf("control: the victim's two connections were not decided once: %q", by)
	}
	if code == http.StatusOK {
		t.Errorf("a connection of the agent, whose decisions are refused (quota_exceeded), went through on the victim's batched decision: %d %q; decisions made: %q", code, body, by)
	}
}

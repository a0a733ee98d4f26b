package egress

import (
	"net/http"
	"testing"

	"turnstile/domain"
)

// TestAttack14ProxyTurnIDWithColon: a turn id may hold ':' (thread:1, and
// Claude Code's claude-code:<hash>:<n>), but the proxy cut its
// Proxy-Authorization at the first ':', so the turn id it read was the
// part before it and the credential the rest: every connection through
// the proxy URL the server gave for such a turn was refused 407 (honest
// work refused). The turn id now ends at the last ':', which no credential
// holds. The control: a turn id without ':' and the other turn's
// credential under the colon id are judged as before.
func TestAttack14ProxyTurnIDWithColon(t *testing.T) {
	_, hp := origin(t, "hi")
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}}
	j.set("plain", np)
	j.set("thread:1", np)
	j.set("thread", np)
	p := NewProxy(j, &mapResolver{})
	addr := startProxy(t, p)
	by := domain.Actor{Name: "agent", Role: domain.RoleRuntime}
	for name, u := range map[string]string{
		"plain (control)":          p.ProxyURL(addr, "plain"),
		"thread:1":                 p.ProxyURL(addr, "thread:1"),
		"thread:1 for a principal": p.ProxyURLFor(addr, "thread:1", by, "c1"),
	} {
		if code, _, body := get(t, proxyClient(u), "http://"+hp+"/"); code != http.StatusOK || body != "hi" {
			t.Errorf("%s: %d %q, want 200", name, code, body)
		}
	}
	// Control: thread's credential does not open thread:1, nor the other
	// way round.
	for name, u := range map[string]string{
		"thread's credential as thread:1": "http://thread%3A1:" + p.Credential("thread") + "@" + addr,
		"thread:1's credential as thread": "http://thread:" + p.Credential("thread:1") + "@" + addr,
	} {
		if code, _, _ := get(t, proxyClient(u), "http://"+hp+"/"); code != http.StatusProxyAuthRequired {
			t.Errorf("%s: %d, want 407", name, code)
		}
	}
}

package tests

import (
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// heldDNS is a PacketConn in front of a dnstest server that swallows the
// queries for the names it holds (the answer is slow to come: a cold
// recursion) until they are let go, and passes every other query on.
type heldDNS struct {
	net.PacketConn
	mu   sync.Mutex
	held map[string]bool
	log  *queryLog
}

func (h *heldDNS) letGo(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, name)
}

func (h *heldDNS) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, from, err := h.PacketConn.ReadFrom(b)
		if err != nil {
			return n, from, err
		}
		var p dnsmessage.Parser
		name := ""
		if _, perr := p.Start(b[:n]); perr == nil {
			if q, qerr := p.Question(); qerr == nil {
				name = strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
			}
		}
		h.log.mu.Lock()
		h.log.names = append(h.log.names, name)
		h.log.mu.Unlock()
		h.mu.Lock()
		held := h.held[name]
		h.mu.Unlock()
		if !held {
			return n, from, err
		}
	}
}

// TestAttack70LookupFailureCachedForEveryone: the agent makes another
// principal's honest WebFetch of a host that resolves fine denied
// host_unresolved, by asking for that host itself with a context about to
// end.
//
// Severity: medium (a false deny of any host, for every principal and
// turn of the server, renewable every ten seconds at will; the decision
// is recorded as a sandbox denial).
//
// Attack: the lookup made before the turn's lock
// (domain/engine/execute.go execute -> sandbox/lookupcache.go
// DecisionChecker.Prefetch) runs under the caller's request context: a
// Claude Code PreToolUse's deadline counts from its arrival
// (api/hooks.go claudeCodeHookHandler: arrived is taken before the body is
// read, so the agent spends its bound as it likes by sending the body
// slowly), a REST decision's from its command timeout after the wait for
// the lock. LookupCache.LookupNetIP keeps every answer but one whose
// context was cancelled: a lookup cut short by the caller's own deadline
// (context.DeadlineExceeded, inherited by Prefetch's WithTimeout) is kept
// as a failure of the name, for DefaultLookupTTL, in the cache every
// principal's check reads (keyed by the name alone). Any later check of
// that name then reads the failure, without a lookup: CheckURLResolved
// refuses host_unresolved although the name server answers at once. Here
// the name server's answer for the honest host is slow only until the
// agent's deadline has passed (the test lets it go once the agent's call
// is answered), standing for a cold lookup longer than what the agent
// left of its bound; the agent's own hook uses hold_wait 2s while the
// lookup bound (--dns-timeout) is 5s.
//
// Control: a second honest host the agent never asked for, answered by
// the same name server, is allowed to the same honest principal.
//
// Suggested fix: look up under a context of the checker's own (detached
// from the caller's: context.WithoutCancel plus the checker's timeout) so
// that a caller's end leaves the lookup to finish for the cache; or keep
// no failure whose context ended before the checker's own timeout (keep
// only ErrHostNotFound and answers); or key a failure to the caller that
// caused it.
func TestAttack70LookupFailureCachedForEveryone(t *testing.T) {
	t.Parallel()
	const honest, control = "docs.honest.example.org", "api.honest.example.org"
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	log := &queryLog{PacketConn: pc}
	held := &heldDNS{PacketConn: pc, held: map[string]bool{honest: true}, log: log}
	pub := []netip.Addr{netip.MustParseAddr("93.184.216.34")}
	dns := serveDNS(held, map[string][]netip.Addr{honest: pub, control: pub})

	ws := workspace(t)
	s := ccServer(t, ws, "full_access", map[string]any{"hold_wait": "2s"}, "--dns-server", dns, "--dns-timeout", "5s")
	agent := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	other := roAs(s, roCreate(t, s, "cc-other", "runtime"))
	fetch := func(session, id, url string) []byte {
		return ccEdit(t, ccPayload(t, "pre_webfetch", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"url": url, "prompt": "read it"}})
	}
	agent.hookHTTP(ccPayload(t, "user_prompt_submit", "sess-agent", ws))
	other.hookHTTP(ccPayload(t, "user_prompt_submit", "sess-other", ws))

	// The agent asks for the honest host; its bound ends while the name
	// server has not answered yet.
	got := agent.hookHTTP(fetch("sess-agent", "toolu_a1", "https://"+honest+"/"))
	if !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Fatalf("the agent's own call (its bound ended during the lookup): %s", got)
	}
	if log.asked(honest) == 0 {
		t.Fatal("the agent's call was not looked up: the attack proves nothing")
	}
	held.letGo(honest) // the name server answers every query at once now

	// Control: the honest principal's fetch of a host the agent never
	// asked for is allowed.
	if got := other.hookHTTP(fetch("sess-other", "toolu_o1", "https://"+control+"/")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: an honest fetch of a host that resolves: %s", got)
	}
	before := log.asked(honest)
	got = other.hookHTTP(fetch("sess-other", "toolu_o2", "https://"+honest+"/"))
	if !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("another principal's honest fetch of a host that resolves, after the agent's cut-short lookup of it: %s (asked the name server %d times)", got, log.asked(honest)-before)
	}
}

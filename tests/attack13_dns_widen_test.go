package tests

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// TestAttack13WideningAllowsAnAskedURLUnchecked: a web_fetch that asks is
// not looked up until it is allowed, and a person's allow looks its host up
// first (a host leading to a metadata address turns the allow into a deny).
// A change of the turn's permissions that allows the open request (a
// child turn whose cap limits the network to **.example.org, widened from
// supervised to full_access: permissions_changed) resolved it allow_once
// without the look-up: the runtime fetched https://meta.example.org/, which
// leads to 169.254.169.254, a call the widened turn denies
// (private_address) when it decides it. Such a request now stays open for
// a person, whose allow looks the host up. The controls: the widening still
// allows an asked command at once, and a person's allow of the request of
// a host leading to a public address allows it.
func TestAttack13WideningAllowsAnAskedURLUnchecked(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	log := &queryLog{PacketConn: pc}
	dns := serveDNS(log, map[string][]netip.Addr{
		"meta.example.org": {netip.MustParseAddr("169.254.169.254")},
		"docs.example.org": {netip.MustParseAddr("93.184.215.14")},
	})
	s := StartServer(t, "", "--dns-server", dns)
	s.startTurn("p13", "ws", "full_access", workspace(t))
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "w13", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "p13",
		"permission_profile": map[string]any{"mode": "supervised"},
		"task_cap":           map[string]any{"network": map[string]any{"mode": "restricted", "allowed_domains": []string{"**.example.org"}}}}, http.StatusCreated, nil)
	cmd := s.decide("w13", "c-cmd", "exec_command", map[string]any{"cmd": "make test"})
	meta := s.decide("w13", "c-meta", "web_fetch", map[string]any{"url": "https://meta.example.org/"})
	docs := s.decide("w13", "c-docs", "web_fetch", map[string]any{"url": "https://docs.example.org/"})
	if meta.Decision != "ask" || docs.Decision != "ask" || cmd.Decision != "ask" {
		t.Fatalf("supervised: %+v %+v %+v", meta, docs, cmd)
	}
	s.JSON("POST", "/v1/turns/w13/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusOK, nil)
	resolution := func(id string) string {
		var a struct {
			Status     string `json:"status"`
			Resolution string `json:"resolution"`
		}
		s.JSON("GET", "/v1/approvals/"+id, nil, http.StatusOK, &a)
		return a.Status + " " + a.Resolution
	}
	if got := resolution(cmd.Request.RequestID); got != "resolved allow_once" {
		t.Fatalf("control: the widening left an asked command %s", got)
	}
	if got := resolution(meta.Request.RequestID); got == "resolved allow_once" {
		t.Errorf("the widening allowed the request of a host leading to 169.254.169.254 without looking it up (looked up %d times)", log.asked("meta.example.org"))
	}
	var out struct{ Resolution, Reason string }
	s.JSON("POST", "/v1/approvals/"+docs.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"}, http.StatusOK, &out)
	if out.Resolution != "allow_once" {
		t.Fatalf("control: a person's allow of the public host answered %+v", out)
	}
	if st, b := s.Do("POST", "/v1/approvals/"+meta.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"}); st != http.StatusOK ||
		!strings.Contains(string(b), `"resolution":"deny"`) || !strings.Contains(string(b), `"sandbox_denied"`) {
		t.Errorf("a person's allow of the host leading to 169.254.169.254 answered %d %s, want deny/sandbox_denied", st, b)
	}
	// Decided now, the widened turn denies the same call.
	wantDecision(t, "decided once widened", s.decide("w13", "c-meta2", "web_fetch", map[string]any{"url": "https://meta.example.org/"}), "deny", "sandbox_denied", "private_address")
}

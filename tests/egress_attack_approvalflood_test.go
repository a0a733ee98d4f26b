package tests

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestEgressAttackApprovalFlood: under a policy that asks, connections to
// one origin share one approval request (egress/asks.go). Before, every
// proxied connection opened its own (EngineJudge.Decide: one EvaluateTool
// with a fresh tool call id each), and a connection the command abandoned
// left its request open: a command opening and dropping connections in a
// loop filled the approver's queue with identical requests (an attack
// review). Here one connection is abandoned once its request is open, four
// more are held at once, and the one request, answered allow_for_turn,
// lets all four through; the turn holds one permission.approval_requested event in
// all. The control: after allow_for_turn the origin is reached by a new
// connection without asking.
func TestEgressAttackApprovalFlood(t *testing.T) {
	t.Parallel()
	s, root := egressServer(t)
	origin := egressOrigin(t, "asked-origin")
	if st, body := startProfileTurn(s, "f", root, map[string]any{"profile": "askweb"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	var eg struct {
		ProxyURL string `json:"proxy_url"`
	}
	s.JSON("GET", "/v1/turns/f/egress", nil, http.StatusOK, &eg)
	pu, err := url.Parse(eg.ProxyURL)
	if err != nil {
		t.Fatal(err)
	}
	pending := func() []approvalView {
		var p struct{ Approvals []approvalView }
		s.JSON("GET", "/v1/approvals?status=pending&turn_id=f", nil, http.StatusOK, &p)
		return p.Approvals
	}
	asked := func() int {
		evs, _ := s.events("f")
		n := 0
		for _, e := range evs {
			if e.Type == "permission.approval_requested" {
				n++
			}
		}
		return n
	}
	// One connection asks, and is abandoned once its request is open.
	c, err := net.Dial("tcp", pu.Host)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://"+origin+"/", nil)
	cred, _ := pu.User.Password()
	req.SetBasicAuth("f", cred)
	req.Header["Proxy-Authorization"] = req.Header["Authorization"]
	delete(req.Header, "Authorization")
	if err := req.WriteProxy(c); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "the abandoned connection's request", func() bool { return asked() == 1 })
	c.Close()

	// Four more, held at once, share it.
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 15 * time.Second}
	type answer struct {
		code int
		line string
		err  error
	}
	got := make(chan answer, 4)
	for range 4 {
		go func() {
			resp, err := client.Get("http://" + origin + "/")
			if err != nil {
				got <- answer{err: err}
				return
			}
			line, _ := bufio.NewReader(resp.Body).ReadString('\n')
			resp.Body.Close()
			got <- answer{code: resp.StatusCode, line: line}
		}()
	}
	p := pending()
	if len(p) != 1 {
		t.Fatalf("%d pending requests for one origin, want 1", len(p))
	}
	s.respond(p[0].Request.RequestID, "allow_for_turn")
	for range 4 {
		if a := <-got; a.err != nil || a.code != 200 || a.line != "asked-origin" {
			t.Errorf("a held connection after its shared request was answered allow_for_turn: %d %q %v", a.code, a.line, a.err)
		}
	}
	if n := asked(); n != 1 {
		t.Errorf("%d approval requests for one origin, want 1", n)
	}

	// Control: the grant lets a new connection through without asking.
	resp, err := client.Get("http://" + origin + "/")
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if resp.StatusCode != 200 || line != "asked-origin" || asked() != 1 {
		t.Fatalf("after allow_for_turn (control): %d %q, %d requests", resp.StatusCode, line, asked())
	}
}

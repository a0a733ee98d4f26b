package tests

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestAttack13EgressPastTheByteQuota: --max-open-turn-bytes refuses new
// tool calls in a credential's open turns once their events pass it, but
// the egress proxy decided every connection a command made through it as
// before: each connection to an origin the policy denies is a
// decision_denied event on the turn, so a command looping on connections
// grew the open turn without bound past the quota, which it had already
// reached. Past it, the proxy now refuses new decisions too, appending
// nothing. The control: before the quota, the proxy denies the same
// connection with a recorded decision, and after the turn that held the
// bytes ends, another turn's call is decided.
func TestAttack13EgressPastTheByteQuota(t *testing.T) {
	t.Parallel()
	s, root := egressServerWith(t, "--max-open-turn-bytes", "262144") // (the turn's snapshot holds some 130 KB)
	if st, body := startProfileTurn(s, "eq", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	var eg struct {
		ProxyURL string `json:"proxy_url"`
	}
	s.JSON("GET", "/v1/turns/eq/egress", nil, http.StatusOK, &eg)
	pu, err := url.Parse(eg.ProxyURL)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 30 * time.Second}
	host := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + ".other.test"
	connect := func(i int) {
		resp, err := client.Get(fmt.Sprintf("http://%d.%s/", i, host))
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("connection %d to a host the policy denies was let through", i)
		}
	}
	count := func() int {
		var page struct {
			Events []struct{} `json:"events"`
		}
		s.JSON("GET", "/v1/turns/eq/events?limit=10000", nil, http.StatusOK, &page)
		return len(page.Events)
	}
	before := count()
	connect(0)
	if count() <= before {
		t.Fatal("control: a denied connection recorded nothing")
	}
	// Past the quota: a runtime's new call is refused.
	reached := false
	for i := 1; i < 400 && !reached; i++ {
		connect(i)
		st, _ := s.Do("POST", "/v1/turns/eq/decisions", map[string]any{"tool_call_id": fmt.Sprint("d", i), "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "true"}})
		reached = st == http.StatusTooManyRequests
	}
	if !reached {
		t.Fatal("400 denied connections did not reach a quota of 256 KiB")
	}
	at := count()
	for i := 400; i < 450; i++ {
		connect(i)
	}
	if n := count(); n > at {
		t.Errorf("past the byte quota, 50 connections through the egress proxy appended %d events to the turn", n-at)
	}
	s.JSON("POST", "/v1/turns/eq/complete", map[string]any{}, http.StatusOK, nil)
	if st, body := startProfileTurn(s, "eq2", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	if st, b := s.Do("POST", "/v1/turns/eq2/decisions", map[string]any{"tool_call_id": "d", "tool_name": "exec_command",
		"arguments": map[string]any{"cmd": "true"}}); st != http.StatusOK {
		t.Fatalf("control: a call once the turn that held the bytes ended: %d %s", st, b)
	}
}

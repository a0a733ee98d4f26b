package tests

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestAttack14EgressChargedToTheTurnsStarter: the byte quota counts each
// event for the credential whose call appended it, but the egress proxy's
// decisions were charged to the credential that started the turn. A
// runtime credential (the agent's) may decide in any turn of its
// workspace, so it took the proxy URL of a turn another runtime
// credential started (GET /v1/turns/{id}/egress) and opened connections
// through it to an origin the policy denies: each a decision_denied event
// charged to the other credential, whose own calls, in its own other turn,
// were then refused 429 naming it, while the agent's quota stayed empty.
// The proxy's decisions now count for the credential the proxy URL was
// given to (or whose command made the connection). The control: the
// agent's connections are recorded before its quota, and refused
// quota_exceeded past it, and the other credential still decides.
func TestAttack14EgressChargedToTheTurnsStarter(t *testing.T) {
	t.Parallel()
	s, root := egressServerWith(t, "--max-open-turn-bytes", "524288") // (the victim's two turns hold some 260 KB of snapshot)
	victim := roAs(s, s.credential("victim", "runtime"))
	agent := roAs(s, s.credential("agent", "runtime"))
	for _, id := range []string{"v1", "v2"} {
		if st, body := startProfileTurn(victim, id, root, map[string]any{"profile": "web"}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, body)
		}
	}
	// The agent's own turn, started before its quota is full.
	if st, b := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": "a1", "workspace_id": "ws", "thread_id": "th-a1",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "web"}}); st != http.StatusCreated {
		t.Fatalf("start a1: %d %s", st, b)
	}
	var eg struct {
		ProxyURL string `json:"proxy_url"`
	}
	agent.JSON("GET", "/v1/turns/v1/egress", nil, http.StatusOK, &eg)
	pu, err := url.Parse(eg.ProxyURL)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 30 * time.Second}
	host := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + ".other.test"
	connect := func(i int) string {
		resp, err := client.Get(fmt.Sprintf("http://%d.%s/", i, host))
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("connection %d to a host the policy denies was let through", i)
		}
		return resp.Header.Get("X-Turnstile-Refusal")
	}
	decide := func(c *Server, turnID, call string) (int, []byte) {
		return c.Do("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "true"}})
	}
	if code := connect(0); code == "quota_exceeded" {
		t.Fatal("control: the first connection was refused for the quota")
	}
	if st, b := decide(victim, "v2", "own0"); st != http.StatusOK {
		t.Fatalf("control: the victim's call before the connections: %d %s", st, b)
	}
	refused := false
	for i := 1; i < 1500 && !refused; i++ {
		refused = connect(i) == "quota_exceeded"
		if !refused && i%20 == 0 {
			if st, b := decide(victim, "v2", fmt.Sprint("own", i)); st != http.StatusOK {
				t.Fatalf("the agent's connections through the proxy of a turn the victim started filled the victim's quota: its own call in its other turn, after %d connections: %d %s", i, st, b)
			}
		}
	}
	if !refused {
		t.Fatal("1500 denied connections were not refused under a quota of 512 KiB")
	}
	if st, b := decide(victim, "v2", "own-last"); st != http.StatusOK {
		t.Errorf("the victim's call once the agent's connections were refused: %d %s", st, b)
	}
	// Past its quota its starts are refused as its calls are (review 183).
	if st, b := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": "a2", "workspace_id": "ws", "thread_id": "th-a2",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "web"}}); st != http.StatusTooManyRequests || !strings.Contains(string(b), `"of":"agent"`) {
		t.Errorf("control: the agent's start past its quota: %d %s", st, b)
	}
	if st, b := decide(agent, "a1", "own"); st != http.StatusTooManyRequests || !strings.Contains(string(b), `"of":"agent"`) {
		t.Errorf("control: the agent, its connections past its quota, in its own turn: %d %s", st, b)
	}
}

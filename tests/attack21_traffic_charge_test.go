package tests

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// attack21Profiles: "w21" reaches every name under rebind.test (the test's
// DNS answers them with 127.0.0.1, so localhost is named too) without
// asking.
const attack21Profiles = `
[permissions.w21]
extends = ":workspace"
[permissions.w21.network]
enabled = true
[permissions.w21.network.domains]
"**.rebind.test" = "allow"
"localhost" = "allow"
"127.0.0.1" = "allow"
[permissions.w21.approvals]
policy = "full_access"
`

// TestAttack21EgressTrafficChargedToTheStarter: attack 14 made the proxy's
// decisions count for the credential its proxy URL was given to, and
// attack 13 refuses a decision past that credential's byte quota. But the
// traffic summaries (one egress.traffic event per origin per 2 s window)
// are recorded as the proxy itself (egress-proxy, role system), which the
// byte quota charges to the principal that started the turn, and no
// quota is asked before they are recorded. A runtime credential (the
// agent's) takes the proxy URL of a turn another runtime credential of
// its workspace started, has a few dozen origins decided (its own
// events, well under its quota), then keeps connecting to them: every
// window appends one summary per origin, charged to the other credential,
// until that credential's own calls, in its own other turn, are refused
// 429 naming it, while the agent's quota still has room. Wanted: the
// summaries of a principal's connections count for that principal (and
// are refused, or dropped, past its quota), never for the turn's starter.
// Control: the agent's connections are let through (the honest use of a
// proxy URL), and the agent still decides in a turn of its own.
func TestAttack21EgressTrafficChargedToTheStarter(t *testing.T) {
	t.Parallel()
	const origins = 40
	long := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + ".rebind.test"
	names := map[string][]netip.Addr{}
	for i := range origins {
		names[fmt.Sprintf("o%d.%s", i, long)] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	dns := dnsServer(t, names)
	file := filepath.Join(t.TempDir(), "profiles.toml")
	os.WriteFile(file, []byte(attack21Profiles), 0o644)
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns,
		"--egress-listen", "127.0.0.1:0", "--max-open-turn-bytes", "524288") // (two turns' snapshots, some 130 KB each with the protected list, and room)
	root := workspace(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	victim := roAs(s, s.credential("victim", "runtime"))
	agent := roAs(s, s.credential("agent", "runtime"))
	for _, id := range []string{"v1", "v2"} {
		if st, body := startProfileTurn(victim, id, root, map[string]any{"profile": "w21"}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, body)
		}
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
	// connect reports false when the agent's connection is refused for
	// the agent's own quota (what a fix may do once the summaries count
	// for the agent); any other refusal ends the test.
	connect := func(i int) bool {
		resp, err := client.Get(fmt.Sprintf("http://o%d.%s:%d/", i, long, port))
		if err != nil {
			t.Fatalf("connection to origin %d: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-Turnstile-Refusal") == "quota_exceeded" {
			return false
		}
		if resp.StatusCode != http.StatusOK || string(b) != "ok" {
			t.Fatalf("control: the agent's connection to allowed origin %d: %d %q %s", i, resp.StatusCode, b, resp.Header.Get("X-Turnstile-Refusal"))
		}
		return true
	}
	decide := func(c *Server, turnID, call string) (int, []byte) {
		return c.Do("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "true"}})
	}
	if st, b := decide(victim, "v2", "own0"); st != http.StatusOK {
		t.Fatalf("control: the victim's call before the connections: %d %s", st, b)
	}
	// Each origin decided once: the agent's events, well under its quota.
	for i := range origins {
		if !connect(i) {
			t.Fatalf("control: the agent's first connection to origin %d was refused for its quota", i)
		}
	}
	// Then only the traffic: one summary per origin per 2 s window.
	held := true
	for w := 1; w <= 20; w++ {
		for i := 0; i < origins && held; i++ {
			held = connect(i)
		}
		time.Sleep(2100 * time.Millisecond)
		if st, b := decide(victim, "v2", fmt.Sprint("own", w)); st != http.StatusOK {
			agentSays := "?"
			if st, b := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": "a1", "workspace_id": "ws", "thread_id": "th-a1",
				"workspace_root": root, "permission_profile": map[string]any{"profile": "w21"}}); st == http.StatusCreated {
				st, b := decide(agent, "a1", "own")
				agentSays = fmt.Sprintf("%d %.200s", st, b)
			} else {
				agentSays = fmt.Sprintf("start: %d %.200s", st, b)
			}
			t.Errorf("after %d windows of the agent's connections through the proxy URL of a turn the victim started, the victim's own call in its other turn: %d %s (the traffic summaries were charged to the victim); the agent's own call in a turn of its own meanwhile: %s", w, st, b, agentSays)
			break
		}
	}
}

package api_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/api"
)

// TestAttack13QuotaChargedToTheTurnsStarter: the byte quota counted every
// event of a turn for the credential that started it. A runtime credential
// (the agent's) deciding calls of 100 KB in a turn another runtime
// credential of its workspace started filled that other credential's
// quota: the other's own calls, in its own other turn, were refused 429
// naming it, while the agent's quota stayed empty, free to do the same to
// the next credential. A call's events now count for its caller. The
// control: the agent is refused once its own calls pass the quota, in any
// turn, and decides again once the turn holding them ends.
func TestAttack13QuotaChargedToTheTurnsStarter(t *testing.T) {
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxHeldBytes = 1 << 20 })
	root := t.TempDir()
	agent, victim := *s, *s
	agent.token = s.credential("agent", "runtime", "ws")
	victim.token = s.credential("victim", "runtime", "ws")
	start := func(c inProcess, id string) []byte {
		st, b := c.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "full_access"}, "workspace_root": root})
		if st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, b)
		}
		return b
	}
	decide := func(c inProcess, turnID, call string, n int) (int, []byte) {
		return c.do("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "echo " + call + " " + strings.Repeat("x", n)}})
	}
	start(victim, "v1")
	start(victim, "v2")
	start(agent, "a1") // before its quota is full: past it, its starts are refused too (review 183)
	refused := ""
	for i := range 40 {
		st, b := decide(agent, "v1", fmt.Sprint("c", i), 100_000)
		if st == http.StatusTooManyRequests {
			refused = string(b)
			break
		}
		if st != http.StatusOK {
			t.Fatalf("decide c%d: %d %s", i, st, b)
		}
		agent.do("GET", "/v1/turns/v1?after="+position(t, b), nil)
	}
	if refused == "" {
		t.Fatal("40 calls of 100 KB were not refused under a quota of 1 MiB")
	}
	if st, b := decide(victim, "v2", "own", 10); st != http.StatusOK {
		t.Errorf("the agent's calls in a turn the victim started filled the victim's quota: its own call in its other turn: %d %s", st, b)
	}
	if !strings.Contains(refused, `"of":"agent"`) {
		t.Errorf("the agent's calls were refused in the name of another credential: %s", refused)
	}
	// Control: the agent's own quota holds, in its own turn too, until the
	// turn holding its calls ends; and a new turn of its own is refused
	// as its calls are.
	if st, b := agent.do("POST", "/v1/turns", map[string]any{"turn_id": "a2", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "full_access"}, "workspace_root": root}); st != http.StatusTooManyRequests {
		t.Fatalf("control: the agent's start past its quota: %d %s", st, b)
	}
	if st, b := decide(agent, "a1", "own", 10); st != http.StatusTooManyRequests {
		t.Fatalf("control: the agent past its quota in its own turn: %d %s", st, b)
	}
	st, b := victim.do("POST", "/v1/turns/v1/complete", map[string]any{})
	if st != http.StatusOK {
		t.Fatalf("complete: %d %s", st, b)
	}
	agent.do("GET", "/v1/turns/v1?after="+position(t, b), nil)
	if st, b := decide(agent, "a1", "own", 10); st != http.StatusOK {
		t.Fatalf("control: the agent once the turn holding its calls ended: %d %s", st, b)
	}
}

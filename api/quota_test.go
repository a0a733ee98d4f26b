package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"turnstile/api"
)

// TestOpenTurnQuota: a runtime credential that starts turns and never ends
// them is held to its quota of open turns, even when it starts them all at
// once; a refused start appends nothing, and the quota is the credential's:
// another credential still starts turns, a repeat of a started turn is
// still answered, a child turn counts, ending a turn frees its place, and a
// restarted server counts what the store holds.
func TestOpenTurnQuota(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	limit := func(c *api.Config) { c.MaxOpenTurns = 3 }
	s := startInProcessOn(t, path, limit)
	root := t.TempDir()
	agent, other := *s, *s
	agent.token = s.credential("agent", "runtime", "ws")
	other.token = s.credential("other", "runtime", "ws")
	body := func(id, parent string) map[string]any {
		b := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}
		if parent != "" {
			b["parent_turn_id"] = parent
		}
		return b
	}
	type answer struct {
		status int
		body   []byte
	}
	const n = 12
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			st, b := agent.do("POST", "/v1/turns", body(fmt.Sprint("a", i), ""))
			answers[i] = answer{st, b}
		})
	}
	wg.Wait()
	var started []string
	for i, a := range answers {
		id := fmt.Sprint("a", i)
		switch a.status {
		case http.StatusCreated:
			started = append(started, id)
		case http.StatusTooManyRequests:
			var e struct {
				Error struct {
					Code    string         `json:"code"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			if json.Unmarshal(a.body, &e) != nil || e.Error.Code != "quota_exceeded" || e.Error.Details["quota"] != "open_turns_per_credential" ||
				e.Error.Details["limit"] != 3.0 || e.Error.Details["of"] != "agent" {
				t.Fatalf("refusal of %s: %s", id, a.body)
			}
			if st, b := s.do("GET", "/v1/turns/"+id, nil); st != http.StatusNotFound {
				t.Fatalf("a refused start appended: %d %s", st, b)
			}
		default:
			t.Fatalf("start %s: %d %s", id, a.status, a.body)
		}
	}
	if len(started) != 3 {
		t.Fatalf("%d concurrent starts of a credential with a quota of 3 open turns started %v", n, started)
	}
	if st, b := agent.do("POST", "/v1/turns", body(started[0], "")); st != http.StatusOK {
		t.Fatalf("a repeat of a started turn at the quota: %d %s", st, b)
	}
	if st, b := other.do("POST", "/v1/turns", body("b1", "")); st != http.StatusCreated {
		t.Fatalf("another credential's start: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns", body("child", started[0])); st != http.StatusTooManyRequests {
		t.Fatalf("a child turn past the quota: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns/"+started[1]+"/complete", map[string]any{}); st != http.StatusOK {
		t.Fatalf("complete: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns", body("child", started[0])); st != http.StatusCreated {
		t.Fatalf("a child turn once a turn ended: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns", body("a-next", "")); st != http.StatusTooManyRequests {
		t.Fatalf("past the quota again (the child counts): %d %s", st, b)
	}

	s.stop()
	s = startInProcessOn(t, path, limit)
	agent.url = s.url
	if st, b := agent.do("POST", "/v1/turns", body("a-after-restart", "")); st != http.StatusTooManyRequests {
		t.Fatalf("past the quota after a restart: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns/"+started[2]+"/interrupt", map[string]any{}); st != http.StatusOK {
		t.Fatalf("interrupt: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns", body("a-after-restart", "")); st != http.StatusCreated {
		t.Fatalf("a start once a turn ended, after a restart: %d %s", st, b)
	}
}

// TestHeldBytesQuota: a runtime credential whose open turns' events pass
// its byte quota (long commands, each allowed) makes no new tool call,
// through /decisions or /exec, until one of its turns ends; a call its
// turn already decided is still answered, and another credential's turns
// still decide.
func TestHeldBytesQuota(t *testing.T) {
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxHeldBytes = 1 << 20 })
	root := t.TempDir()
	agent, other := *s, *s
	agent.token = s.credential("agent", "runtime", "ws")
	other.token = s.credential("other", "runtime", "ws")
	start := func(c inProcess, id string) {
		t.Helper()
		if st, b := c.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "full_access"}, "workspace_root": root}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, b)
		}
	}
	decide := func(c inProcess, turnID, call string) (int, []byte) {
		return c.do("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "echo " + call + " " + strings.Repeat("x", 100_000)}})
	}
	start(agent, "a1")
	start(other, "b1")
	refused := -1
	for i := range 40 {
		st, b := decide(agent, "a1", fmt.Sprint("c", i))
		if st == http.StatusTooManyRequests {
			if !strings.Contains(string(b), `"quota":"open_turn_bytes_per_credential"`) || !strings.Contains(string(b), `"of":"agent"`) {
				t.Fatalf("refusal: %s", b)
			}
			refused = i
			break
		}
		if st != http.StatusOK {
			t.Fatalf("decide c%d: %d %s", i, st, b)
		}
		// Let the read models include the decision, as the next call's
		// count does at the pace of a runtime.
		if st, b := agent.do("GET", "/v1/turns/a1?after="+position(t, b), nil); st != http.StatusOK {
			t.Fatalf("read: %d %s", st, b)
		}
	}
	// 1 MiB holds at most ten decisions of 100 KB (each event holds the
	// command at least once).
	if refused < 0 || refused > 11 {
		t.Fatalf("refused at call %d", refused)
	}
	if st, b := decide(agent, "a1", "c0"); st != http.StatusOK {
		t.Fatalf("a decided call past the quota: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns/a1/exec", map[string]any{"tool_call_id": "x1", "argv": []string{"/bin/true"}}); st != http.StatusTooManyRequests {
		t.Fatalf("a new /exec past the quota: %d %s", st, b)
	}
	if st, b := decide(other, "b1", "c0"); st != http.StatusOK {
		t.Fatalf("another credential's call: %d %s", st, b)
	}
	st, b := agent.do("POST", "/v1/turns/a1/complete", map[string]any{})
	if st != http.StatusOK {
		t.Fatalf("complete: %d %s", st, b)
	}
	start(agent, "a2")
	if st, b := agent.do("GET", "/v1/turns/a2?after="+position(t, b), nil); st != http.StatusOK {
		t.Fatalf("read: %d %s", st, b)
	}
	if st, b := decide(agent, "a2", "c0"); st != http.StatusOK {
		t.Fatalf("a call once the turn that held the bytes ended: %d %s", st, b)
	}
}

// position is the position a command's answer carries.
func position(t *testing.T, body []byte) string {
	t.Helper()
	var p struct {
		Position string `json:"position"`
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Position == "" {
		t.Fatalf("no position in %s", body)
	}
	return p.Position
}

// TestOpenTurnQuotaAfterAnEnd: a runtime that ends its turn and starts the
// next at once is never refused for the turn it has just ended, though the
// read models may apply the end a moment after its answer (TestOpenTurnQuota
// was refused so, once, after its restart).
func TestOpenTurnQuotaAfterAnEnd(t *testing.T) {
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxOpenTurns = 1 })
	root := t.TempDir()
	agent := *s
	agent.token = s.credential("agent", "runtime", "ws")
	for i := range 100 {
		id := fmt.Sprint("t", i)
		if st, b := agent.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
			t.Fatalf("start %s right after the end of the one before: %d %s", id, st, b)
		}
		if st, b := agent.do("POST", "/v1/turns/"+id+"/complete", map[string]any{}); st != http.StatusOK {
			t.Fatalf("complete %s: %d %s", id, st, b)
		}
	}
	// The control: the quota still holds while a turn is open.
	if st, b := agent.do("POST", "/v1/turns", map[string]any{"turn_id": "open", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	if st, b := agent.do("POST", "/v1/turns", map[string]any{"turn_id": "second", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusTooManyRequests {
		t.Fatalf("a second open turn under a quota of one: %d %s", st, b)
	}
}

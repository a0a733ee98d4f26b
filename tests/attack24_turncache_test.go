package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAttack24TurnCacheTakenByOneCredential: the engine keeps --turn-cache
// turns (4,096, and --turn-cache-bytes, 256 MiB) loaded, least recently used
// out, one cache for every credential; a command on a turn that is not
// there replays the turn's whole stream first, under its lock. Nothing
// gives a credential a share of it, and a command refused at once still
// loads its turn: a decision on an ended turn (422 illegal_transition)
// replays it whole to say so. So the agent (1) evicts every other
// credential's turns by touching its own (its open turns alone fill the
// bytes, the quota being as large as the cache; ended ones, which no quota
// counts, any number): each of their next decisions then replays their
// turn, a long session's tens of MB, on their hot path; and (2) makes the
// server replay a large turn of its own per request of a hundred bytes (a
// turn of 30 writable roots is 1.6 MB of snapshot; the agent starts and
// ends as many as it likes, and cycles its refused decisions over more of
// them than the cache holds), at whatever concurrency it likes. Scaled here
// with --turn-cache 8. Wanted: a credential's turns hold at most a share of
// the cache (the others' stay loaded), and a command on a turn the read
// models know has ended is refused without a replay.
// Control: the other credential's turn is cached before the agent starts,
// and its decisions are answered throughout.
func TestAttack24TurnCacheTakenByOneCredential(t *testing.T) {
	s := StartServer(t, "", "--turn-cache", "8")
	agent := roAs(s, s.credential("agent", "runtime"))
	other := roAs(s, s.credential("other", "runtime"))
	pid := s.cmd.Process.Pid
	rchar := func() int {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "rchar: "); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		t.Fatal("no rchar")
		return 0
	}
	// big starts a turn of 30 writable roots (a snapshot of some 2.4 MB).
	big := func(c *Server, id string) string {
		root := workspace(t)
		var roots []string
		for i := range 30 {
			p := filepath.Join(root, fmt.Sprintf("p%d", i))
			os.Mkdir(p, 0o755)
			roots = append(roots, p)
		}
		c.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "workspace_root": root,
			"project_roots": roots, "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
		return root
	}
	otherRoot := big(other, "other-big")
	read := func(c *Server, turnID, call, root string) int {
		st, _ := c.Request("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "read_file", "arguments": map[string]any{"path": filepath.Join(root, "a.txt")}})
		return st
	}
	// Control: the other credential's turn is loaded; a decision costs no
	// replay.
	if st := read(other, "other-big", "c0", otherRoot); st != http.StatusOK {
		t.Fatalf("control: %d", st)
	}
	r0 := rchar()
	if st := read(other, "other-big", "c1", otherRoot); st != http.StatusOK {
		t.Fatalf("control: %d", st)
	}
	if n := rchar() - r0; n > 500_000 {
		t.Fatalf("control: a decision on a cached turn read %d bytes", n)
	}
	// The agent's large turn, ended; then decisions in ten small turns of
	// its own.
	agentRoot := big(agent, "agent-big")
	agent.Request("POST", "/v1/turns/agent-big/complete", map[string]any{})
	sweep := func(round int) {
		for i := range 10 {
			id := fmt.Sprintf("agent-%d", i)
			if round == 0 {
				agent.startTurn(id, "ws", "full_access", agentRoot)
			}
			read(agent, id, fmt.Sprintf("r%d", round), agentRoot)
		}
	}
	sweep(0)
	r0 = rchar()
	if st := read(other, "other-big", "c2", otherRoot); st != http.StatusOK {
		t.Fatalf("the other credential's decision: %d", st)
	}
	if n := rchar() - r0; n > 500_000 {
		t.Errorf("after the agent's decisions in 10 turns of its own, the other credential's next decision read %d bytes: its turn was evicted and replayed; want a share of the cache per credential", n)
	}
	// Refused decisions on the agent's ended turn, each after a sweep.
	total := 0
	for round := 1; round <= 3; round++ {
		sweep(round)
		r0 = rchar()
		if st := read(agent, "agent-big", fmt.Sprintf("late-%d", round), agentRoot); st != http.StatusUnprocessableEntity {
			t.Fatalf("a decision on an ended turn: %d, want 422", st)
		}
		total += rchar() - r0
	}
	if total > 1_500_000 {
		t.Errorf("3 decisions refused on the agent's ended turn read %d bytes: each replayed the turn to refuse it; want it refused from what the read models know", total)
	}
}

package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"turnstile/api"
)

// TestAttack183_StartsPastOpenTurnBytes (review 183): the quota
// open_turn_bytes_per_credential bounds "the stored events a credential's
// calls add to open turns" (--max-open-turn-bytes, 256 MiB: "the server
// holds an open turn's decisions whole, a few times over"), and the read
// models charge a turn's start to its starter (countLive) — but only a
// tool call is refused past it (admitCall); a start never is. A turn's
// start is the largest event a credential can add (its security snapshot
// up to 3 MiB, which the read models hold whole for every open turn, and
// JSON-RPC turn/start's prompt, up to the 1 MiB body), so the agent,
// holding the runtime's credential, fills its 1,024 open turns with 3 MiB
// snapshots: 3 GiB of stored events held live, twelve times the quota,
// with its calls refused only after the fact.
//
// Control: past the quota, a new decision in one of those turns is refused
// 429 quota_exceeded (the quota is counted, and the starts are counted in
// it); below it, the starts succeed.
func TestAttack183_StartsPastOpenTurnBytes(t *testing.T) {
	const limit = 2 << 20
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxHeldBytes = limit })
	agent := s.credential("agent183q", "runtime")
	root := t.TempDir()
	var roots []string
	for i := range 8 {
		roots = append(roots, filepath.Join(root, fmt.Sprintf("project-%02d", i)))
		if err := os.MkdirAll(roots[i], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	as := &inProcess{t: t, url: s.url, token: agent}
	start := func(id string) (int, []byte) {
		return as.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "auto_accept_edits"}, "workspace_root": root, "project_roots": roots})
	}
	// Each start stores about 750 KB (a snapshot of eight writable roots).
	for i := range 3 {
		if st, b := start(fmt.Sprintf("q183-%d", i)); st != http.StatusCreated {
			t.Fatalf("control: start %d below the quota: %d %.300s", i, st, b)
		}
	}
	// Control: past the quota, a new tool call is refused.
	st, b := as.do("POST", "/v1/turns/q183-0/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "read_file",
		"arguments": map[string]any{"path": root}})
	if st != http.StatusTooManyRequests || !bytes.Contains(b, []byte("open_turn_bytes_per_credential")) {
		t.Fatalf("control: a decision past a %d-byte open_turn_bytes quota held by three starts: %d %.300s, want 429", limit, st, b)
	}
	started := 0
	for i := 3; i < 8; i++ {
		st, b := start(fmt.Sprintf("q183-%d", i))
		if st != http.StatusCreated {
			if st != http.StatusTooManyRequests || !bytes.Contains(b, []byte("open_turn_bytes_per_credential")) {
				t.Fatalf("start %d: %d %.300s", i, st, b)
			}
			break
		}
		started++
	}
	if started > 0 {
		t.Fatalf("%d more turns of about 750 KB each were started past the credential's %d-byte open_turn_bytes quota (already past it: its calls are refused); "+
			"a start is never refused by it, so 1,024 open turns of 3 MiB snapshots hold 3 GiB", started, limit)
	}
}

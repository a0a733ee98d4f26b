package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/api"
)

// TestLargeAnswerHeldAgainstTheBodyBudget: an answer of 64 KiB or more is
// held against its request's share of --max-body-memory while it is
// written; one the share cannot hold is a 503 server_busy rather than a
// buffer the server keeps for a client that may never read it. Control:
// the same list while it fits is answered whole.
func TestLargeAnswerHeldAgainstTheBodyBudget(t *testing.T) {
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxBodyMemory = 1 << 20 }) // a share: 512 KiB
	root := t.TempDir()
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "big", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	// ask opens a request and returns the position to read after (the
	// read models may be a moment behind the decision's answer).
	ask := func(i int) string {
		t.Helper()
		st, b := s.do("POST", "/v1/turns/big/decisions", map[string]any{"tool_call_id": fmt.Sprintf("c%d", i), "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": fmt.Sprintf("echo %d %s", i, strings.Repeat("A", 60_000))}})
		var d struct {
			Decision string `json:"decision"`
			Position string `json:"position"`
		}
		if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Decision != "ask" || d.Position == "" {
			t.Fatalf("decide c%d: %d %.200s", i, st, b)
		}
		return d.Position
	}
	ask(0)
	pos := ask(1)
	if st, b := s.do("GET", "/v1/approvals?status=pending&after="+pos, nil); st != http.StatusOK || bytes.Count(b, []byte(`"request_id"`)) < 2 {
		t.Fatalf("control: a list of two (about 240 KB): %d %.200s", st, b)
	}
	for i := 2; i < 8; i++ {
		pos = ask(i)
	}
	st, b := s.do("GET", "/v1/approvals?status=pending&after="+pos, nil)
	if st != http.StatusServiceUnavailable || !bytes.Contains(b, []byte("server_busy")) {
		t.Fatalf("a list of eight (about 1 MB) past a 512 KiB share: %d %.200s, want 503 server_busy", st, b)
	}
}

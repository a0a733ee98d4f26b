package api_test

import (
	"bytes"
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
	ask := func(i int) {
		t.Helper()
		st, b := s.do("POST", "/v1/turns/big/decisions", map[string]any{"tool_call_id": fmt.Sprintf("c%d", i), "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": fmt.Sprintf("echo %d %s", i, strings.Repeat("A", 60_000))}})
		if st != http.StatusOK || !bytes.Contains(b, []byte(`"ask"`)) {
			t.Fatalf("decide c%d: %d %.200s", i, st, b)
		}
	}
	ask(0)
	ask(1)
	if st, b := s.do("GET", "/v1/approvals?status=pending", nil); st != http.StatusOK || bytes.Count(b, []byte(`"request_id"`)) < 2 {
		t.Fatalf("control: a list of two (about 240 KB): %d %.200s", st, b)
	}
	for i := 2; i < 8; i++ {
		ask(i)
	}
	st, b := s.do("GET", "/v1/approvals?status=pending", nil)
	if st != http.StatusServiceUnavailable || !bytes.Contains(b, []byte("server_busy")) {
		t.Fatalf("a list of eight (about 1 MB) past a 512 KiB share: %d %.200s, want 503 server_busy", st, b)
	}
}

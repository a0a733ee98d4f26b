package tests

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"turnstile/internal/scratchfs"
)

// TestDiskFull runs the server on a data directory of its own small tmpfs,
// fills that file system from outside (as another process would), and
// checks: a decision that cannot be made durable is answered 503
// store_unavailable (never 200, never a dropped connection); the server
// stays up; once space returns the same call succeeds; and after a restart
// every decision answered 200 before, during and after is in the turn's
// history.
func TestDiskFull(t *testing.T) {
	data, _ := scratchfs.Tmpfs(t, 32<<20)
	s := StartServer(t, data)
	root := workspace(t)
	s.startTurn("full", "ws-full", "full_access", root)
	var acked []string
	decide := func(call string) (int, []byte) {
		return s.Request("POST", "/v1/turns/full/decisions", map[string]any{"tool_call_id": call, "tool_name": "read_file", "arguments": map[string]any{"path": "a.txt"}})
	}
	// Control: decisions are durable while there is space.
	for i := range 3 {
		call := fmt.Sprintf("ok-%d", i)
		if status, body := decide(call); status != http.StatusOK {
			t.Fatalf("decision with space: %d %s", status, body)
		}
		acked = append(acked, call)
	}

	filler := filepath.Join(data, "filler")
	scratchfs.Fill(t, filler)

	// A few more decisions may still fit (a partly filled block; bbolt, on
	// an older data directory, reuses freed pages); the store must refuse
	// one well before 5,000.
	failed := ""
	for i := range 5000 {
		call := fmt.Sprintf("full-%d", i)
		status, body := decide(call)
		if status == http.StatusOK {
			acked = append(acked, call)
			continue
		}
		if status != http.StatusServiceUnavailable || !bytes.Contains(body, []byte(`"store_unavailable"`)) {
			t.Fatalf("decision on a full disk: %d %s; want 503 store_unavailable", status, body)
		}
		failed = call
		break
	}
	if failed == "" {
		t.Fatal("5,000 decisions were acknowledged on a full file system")
	}
	if status, body := s.Request("GET", "/v1/turns/full", nil); status != http.StatusOK {
		t.Fatalf("server after a refused append: %d %s", status, body)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for _, call := range []string{failed, "after-0", "after-1"} {
		if status, body := decide(call); status != http.StatusOK {
			t.Fatalf("decision %s after space returned: %d %s", call, status, body)
		}
		acked = append(acked, call)
	}

	s.Restart()
	status, events := s.Request("GET", "/v1/turns/full/events", nil)
	if status != http.StatusOK {
		t.Fatalf("events after restart: %d %s", status, events)
	}
	for _, call := range acked {
		if !bytes.Contains(events, []byte(`"`+call+`"`)) {
			t.Errorf("acknowledged decision %s missing after the restart", call)
		}
	}
	t.Logf("%d decisions acknowledged; %s refused with 503 on the full disk, then accepted", len(acked), failed)
}

package tests

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDiskFull runs the server on a data directory of its own small tmpfs,
// fills that file system from outside (as another process would), and
// checks: a decision that cannot be made durable is answered 503
// store_unavailable (never 200, never a dropped connection); the server
// stays up; once space returns the same call succeeds; and after a restart
// every decision answered 200 before, during and after is in the turn's
// history.
func TestDiskFull(t *testing.T) {
	data := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", data).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs (this test needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", data).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", data, err, out)
		}
	})
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
	fill(t, filler)

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

// fill writes path until its file system has no space left.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}

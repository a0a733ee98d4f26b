package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFullAccessCannotReadTheArchiveOfOldTurns: the summaries of old turns
// (every workspace's turn ids, workspaces and threads) live in the data
// directory's readmodels.archive, a gateway secret like the checkpoint
// beside it. Another workspace's turn ends and is evicted into the archive
// (--recent-turns 1), which the next checkpoint syncs; a full_access
// command then looks for its id in the archive's paths. Control: read from
// outside, the archive names it, and the server still lists it.
func TestFullAccessCannotReadTheArchiveOfOldTurns(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	other := workspace(t)
	data := t.TempDir()
	s := StartServer(t, data, "--recent-turns", "1", "--checkpoint-interval", "1s")
	const marker = "victim-archive-marker"
	s.startTurn(marker, "ws-other", "auto_accept_edits", other)
	s.JSON("POST", "/v1/turns/"+marker+"/complete", nil, http.StatusOK, nil)
	s.startTurn("evicts", "ws-other", "auto_accept_edits", other)
	s.JSON("POST", "/v1/turns/evicts/complete", nil, http.StatusOK, nil)
	s.startTurn("fa-archive", "ws", "full_access", root)
	// Control: read from outside, the archive names the evicted turn once
	// a checkpoint synced it (the deadline is a hang guard).
	archive := filepath.Join(data, "readmodels.archive")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(archive); err == nil && strings.Contains(string(b), marker) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("control: the archive read from outside never named the evicted turn")
		}
	}
	// Control: the command finds the marker in a copy of the archive.
	cp := filepath.Join(t.TempDir(), "copy.archive")
	b, _ := os.ReadFile(archive)
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script := "grep -q " + marker + " " + cp + " && echo copy; for f in " + archive + " " + data + "/*.archive; do if grep -q " + marker + " \"$f\" 2>/dev/null; then echo \"$f\"; exit 0; fi; done; echo nothing"
	_, d := s.exec("fa-archive", "", map[string]any{"tool_call_id": "c1", "argv": []string{"sh", "-c", script}, "cwd": root})
	if d.Result == nil {
		t.Fatalf("exec: %+v", d)
	}
	var list struct {
		Turns []struct {
			TurnID string `json:"id"`
			Status string `json:"status"`
		} `json:"turns"`
	}
	s.JSON("GET", "/v1/turns?workspace_id=ws-other", nil, http.StatusOK, &list)
	if len(list.Turns) != 2 || list.Turns[1].TurnID != marker || list.Turns[0].TurnID != "evicts" || list.Turns[1].Status != "completed" {
		t.Fatalf("control: the server lists %+v", list.Turns)
	}
	if got := strings.TrimSpace(d.Result.Stdout); got != "copy\nnothing" {
		t.Errorf("a full_access command read the archive of old turns (%s): %+v", got, d.Result)
	}
}

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack9FullAccessReadsCheckpointRenamedOverItsMask: with --store
// bolt:PATH outside the data directory, the read models' checkpoint lies
// beside the store (PATH.readmodels.checkpoint), and it is a gateway secret:
// a full_access command finds an empty read-only file masked over it. But
// the server writes the checkpoint every --checkpoint-interval as a
// temporary file beside it (PATH.readmodels.checkpoint.tmp, which no mask
// covers) renamed over the old one; the rename replaces the directory
// entry the mask was mounted on, and the kernel then detaches that mount
// in every other mount namespace (a mount point in another namespace may
// be renamed over). A full_access command that waits for the next save
// reads the checkpoint through its path, and also the temporary file:
// every workspace's approvals, grants, audit rows and timeline.
//
// Here another workspace's turn id is the marker; a full_access turn's
// command polls the checkpoint's paths (and their temporary files) for it.
// Control: the checkpoint names it when read from outside.
func TestAttack9FullAccessReadsCheckpointRenamedOverItsMask(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	other := workspace(t)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	store := filepath.Join(outside, "events.db")
	cp := store + ".readmodels.checkpoint"
	data := t.TempDir()
	s := StartServer(t, data, "--store", "bolt:"+store, "--checkpoint-interval", "1s")
	// The marker is another workspace's turn id (the checkpoint's turn
	// summaries name each turn).
	const marker = "victim-attack9-marker"
	s.startTurn(marker, "ws-other", "auto_accept_edits", other)
	s.startTurn("fa-cp", "ws", "full_access", root)
	// Wherever the server keeps it: beside the store, or in the data
	// directory.
	paths := cp + " " + cp + ".tmp " + data + "/*.readmodels.checkpoint " + data + "/*.readmodels.checkpoint.tmp"
	script := "for i in $(seq 1 150); do " +
		"for f in " + paths + "; do if grep -q " + marker + " \"$f\" 2>/dev/null; then echo \"$f\"; exit 0; fi; done; " +
		"sleep 0.05; done; echo nothing"
	_, d := s.exec("fa-cp", "", map[string]any{"tool_call_id": "c1", "argv": []string{"sh", "-c", script}, "cwd": root})
	if d.Result == nil {
		t.Fatalf("exec: %+v", d)
	}
	// Control: from outside, the checkpoint names the other workspace's
	// turn.
	found := false
	matches, _ := filepath.Glob(data + "/*.readmodels.checkpoint")
	for _, p := range append(matches, cp) {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			found = true
		}
	}
	if !found {
		t.Fatalf("control: no checkpoint read from outside names the other workspace's turn (%v, %s)", matches, cp)
	}
	if got := strings.TrimSpace(d.Result.Stdout); got != "nothing" {
		t.Errorf("a full_access command read the read-model checkpoint (%s): %+v", got, d.Result)
	}
}

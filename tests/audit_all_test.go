package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIAuditVerifyAllOnTheServer: `audit verify --all` (the server walks
// its store) reports progress on stderr and the usual line on stdout; with
// --heads it accepts a turn that grew since the heads were recorded (its
// recorded head still hashes the same) and catches a changed last event of
// another turn, which the chain alone cannot.
func TestCLIAuditVerifyAllOnTheServer(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	if err := os.WriteFile(filepath.Join(root, "tailmarkerall.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.startTurn("grow", "ws", "full_access", root)
	s.decide("grow", "c1", "task_list", nil)
	s.startTurn("tail", "ws", "full_access", root)
	s.decide("tail", "c1", "read_file", map[string]any{"path": "tailmarkerall.txt"})
	heads := filepath.Join(t.TempDir(), "heads.json")
	out, errOut, code := s.CLI("audit", "verify", "--all", "--heads", heads)
	if code != 0 || !strings.Contains(out, "ok: 2 turns, 8 events") || !strings.Contains(errOut, "verified 8 events of 2 turns") {
		t.Fatalf("first verify: %d\n%s%s", code, out, errOut)
	}
	s.decide("grow", "c2", "task_list", nil)
	if out, errOut, code := s.CLI("audit", "verify", "--all", "--heads", heads, "--quiet"); code != 0 || !strings.Contains(out, "ok: 2 turns, 9 events") {
		t.Fatalf("a turn that grew since its head was recorded: %d\n%s%s", code, out, errOut)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tamper(t, s.Data, "tailmarkerall") // in tail's last event (version 3)
	s.start()
	// --quiet before a flag with a value (it used to swallow that flag).
	out, _, code = s.CLI("audit", "verify", "--quiet", "--server", s.URL, "--all")
	if code != 0 || !strings.Contains(out, "--heads") {
		t.Fatalf("without recorded heads verify cannot see it, and must say so: %d %s", code, out)
	}
	out, _, code = s.CLI("audit", "verify", "--all", "--quiet", "--heads", heads)
	m := tamperedLine.FindStringSubmatch(out)
	if code == 0 || m == nil || m[1] != "tail" || m[2] != "3" {
		t.Fatalf("verify against the recorded heads: exit %d\n%s", code, out)
	}
}

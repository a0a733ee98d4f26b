package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack125_AllowedToolsNarrowingLeavesRunningCommand (low): the 123
// fix made SandboxNarrows see a newly restricted allowed_paths, "as every
// new command the table allows outright is denied there"; a restricted
// allowed_tools (or a denied_tools) denies every new command just the same
// (exec_command not in the list) and is still not seen. The admin narrows a
// full_access turn to allowed_tools [read_file] (every write, every
// command denied from now on); the command the agent started before keeps
// running and, on its trigger, writes ../outside.txt.
//
// Control (labelled, in the test): after the change a new command writing
// the same file is denied by allowed_tools. Control
// (TestAttack125_AllowedToolsNarrowingLeavesRunningCommandControl): the
// same running command is stopped by the allowed_paths narrowing the 123
// fix covers, and the file stays unwritten.
func TestAttack125_AllowedToolsNarrowingLeavesRunningCommand(t *testing.T) {
	t.Parallel()
	s, ws, src, done := attack123RunningCommand(t, "a125t", "a125t-c1")
	outside := filepath.Join(ws, "outside.txt")
	if st, b := s.Request("POST", "/v1/turns/a125t/permissions", map[string]any{"permission_profile": map[string]any{
		"mode": "full_access", "allowed_tools": []string{"read_file"}}}); st != http.StatusOK {
		t.Fatalf("the admin's narrowing: %d %s", st, b)
	}
	// CONTROL: a new command is denied after the narrowing.
	if st, d := s.exec("a125t", "", map[string]any{"tool_call_id": "a125t-c2", "cwd": src, "timeout_ms": 20000,
		"argv": []string{"/bin/sh", "-c", "echo honest > ../outside.txt"}}); d.Decision != "deny" || d.DecidedBy != "allowed_tools" {
		t.Fatalf("control: a new command after the narrowing: %d %+v, want deny by allowed_tools", st, d)
	}
	alive := attack123Trigger(t, src)
	res := <-done
	b, _ := os.ReadFile(outside)
	t.Logf("alive after the narrowing %v; exec answer %d %s; %s now %q", alive, res.status, res.body, outside, b)
	if strings.Contains(string(b), "pwned") {
		t.Errorf("after the admin restricted turn a125t to allowed_tools [read_file] (every new command denied), the command started before it kept running and wrote %s", outside)
	}
}

// TestAttack125_AllowedToolsNarrowingLeavesRunningCommandControl: the 123
// fix's allowed_paths narrowing stops the same command.
func TestAttack125_AllowedToolsNarrowingLeavesRunningCommandControl(t *testing.T) {
	t.Parallel()
	s, ws, src, done := attack123RunningCommand(t, "a125tc", "a125tc-c1")
	outside := filepath.Join(ws, "outside.txt")
	if st, b := s.Request("POST", "/v1/turns/a125tc/permissions", map[string]any{"permission_profile": map[string]any{
		"mode": "full_access", "allowed_paths": []string{src}}}); st != http.StatusOK {
		t.Fatalf("the narrowing: %d %s", st, b)
	}
	res := <-done
	alive := attack123Trigger(t, src)
	b, _ := os.ReadFile(outside)
	t.Logf("exec answer %d %s; alive %v", res.status, res.body, alive)
	if alive || strings.Contains(string(b), "pwned") {
		t.Fatalf("control: the allowed_paths narrowing did not stop the command (alive %v, %s %q)", alive, outside, b)
	}
}

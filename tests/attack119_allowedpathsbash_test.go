package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack119_AllowedPathsLeaveBashUnconfined (hundred-and-nineteenth
// review, medium): a Claude Code turn runs its Bash commands outside
// turnstile's kernel sandbox (execution_backend claude_cli), so "under a
// snapshot that restricts either [files or network] ... a shell command the
// policy would allow without asking anyone is refused, command_unconfined"
// (README, the eighty-second review). The restriction an admin uses to
// "take ... the paths outside a directory away" from a misbehaving session
// without changing its mode (the eighteenth review: allowed_paths: src) is
// not one RestrictsReach counts: it reads the sandbox, the deny rules and
// the network, never the policy's restricted allowed_paths. So after the
// admin's narrowing Claude Code's Write of a file outside src is refused,
// but its Bash `echo … > ../outside.txt` (cwd src, inside allowed_paths) is
// allowed outright: Claude Code runs it as its user and writes, or reads,
// every path allowed_paths was to keep it from.
//
// Controls (TestAttack119_AllowedPathsLeaveBashUnconfinedControl): under the
// same narrowing the Write of the same file outside src is denied, a Write
// in src is allowed; before the narrowing the same Bash is allowed
// (full_access, nothing restricted).
func TestAttack119_AllowedPathsLeaveBashUnconfined(t *testing.T) {
	t.Parallel()
	_, rt, ws, src, session := attack119AllowedPathsSession(t)
	outside := filepath.Join(ws, "outside.txt")
	got := rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_bash", session, ws), map[string]any{"cwd": src, "tool_use_id": "toolu_119b2",
		"tool_input": map[string]any{"command": "echo pwned > ../outside.txt", "description": "write outside src"}}))
	t.Logf("Bash writing %s after allowed_paths [%s]: %s", outside, src, got)
	if strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("after the admin restricted the session to allowed_paths [%s], Claude Code's Bash `echo pwned > ../outside.txt` (cwd %s) is allowed without asking anyone: Claude Code runs it unconfined and writes %s, which the same snapshot refuses its Write",
			src, src, outside)
	}
}

// TestAttack119_AllowedPathsLeaveBashUnconfinedControl (passes): the
// narrowing binds Claude Code's file tools (a Write outside src denied, in
// src allowed), and the same Bash was allowed before it (full_access).
func TestAttack119_AllowedPathsLeaveBashUnconfinedControl(t *testing.T) {
	t.Parallel()
	_, rt, ws, src, session := attack119AllowedPathsSession(t)
	allowed := func(a string) bool { return strings.Contains(a, `"permissionDecision":"allow"`) }
	write := func(id, path string) string {
		return rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"cwd": src, "tool_use_id": id,
			"tool_input": map[string]any{"file_path": path, "content": "x\n"}}))
	}
	if got := write("toolu_119w1", filepath.Join(ws, "outside.txt")); allowed(got) || !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Fatalf("control: a Write outside allowed_paths: %s, want deny", got)
	}
	if got := write("toolu_119w2", filepath.Join(src, "a.go")); !allowed(got) {
		t.Fatalf("control: a Write in allowed_paths: %s, want allow", got)
	}
	// Before any narrowing (another session of the same project), the
	// same Bash is allowed: full_access restricts nothing.
	const plain = "a119-plain"
	rt.hookHTTP(ccEdit(t, ccPayload(t, "user_prompt_submit", plain, ws), map[string]any{"cwd": src}))
	got := rt.hookHTTP(ccEdit(t, ccPayload(t, "pre_bash", plain, ws), map[string]any{"cwd": src, "tool_use_id": "toolu_119p1",
		"tool_input": map[string]any{"command": "echo pwned > ../outside.txt", "description": "write outside src"}}))
	if !allowed(got) {
		t.Fatalf("control: the Bash in an unrestricted full_access session: %s, want allow", got)
	}
}

// attack119AllowedPathsSession starts a full_access Claude Code session in
// ws/src (project ws) and has the admin narrow its turn to allowed_paths
// [ws/src], mode unchanged.
func attack119AllowedPathsSession(t *testing.T) (s, rt *Server, ws, src, session string) {
	t.Helper()
	ws = workspace(t)
	src = filepath.Join(ws, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	s = ccServer(t, ws, "full_access", nil)
	rt = roAs(s, roCreate(t, s, "a119-cc-agent", "runtime"))
	session = "a119-allowed-paths"
	rt.hookHTTP(ccEdit(t, ccPayload(t, "user_prompt_submit", session, ws), map[string]any{"cwd": src}))
	st, b := s.Request("POST", "/v1/turns/"+ccTurn(session, 1)+"/permissions", map[string]any{"permission_profile": map[string]any{
		"mode": "full_access", "allowed_paths": []string{src}}})
	if st != http.StatusOK {
		t.Fatalf("the admin's narrowing: %d %s", st, b)
	}
	return s, rt, ws, src, session
}

// TestAttack119_AllowedPathsLeaveExecUnbound (same finding, the native
// backend): turnstile's own /exec runs a command under the kernel sandbox,
// which is given the snapshot's filesystem entries and never the policy's
// allowed_paths; the decision checks only the command's working directory
// against the list. After an admin narrows a full_access turn to
// allowed_paths [ws/src], a command run from src writes ../outside.txt.
//
// Control (TestAttack119_AllowedPathsLeaveExecUnboundControl): under the
// same narrowing the decisions of the runtime's own file tools for that
// file (apply_patch, read_file) are denied: the snapshot does restrict it.
// (Not even the command's cwd is held to the list: the same command run
// from ws itself, outside allowed_paths, runs too.)
func TestAttack119_AllowedPathsLeaveExecUnbound(t *testing.T) {
	t.Parallel()
	s, ws, src := attack119AllowedPathsNative(t, "a119x")
	outside := filepath.Join(ws, "outside.txt")
	st, d := s.exec("a119x", "", map[string]any{"tool_call_id": "x1", "cwd": src, "timeout_ms": 20000,
		"argv": []string{"/bin/sh", "-c", "echo pwned > ../outside.txt"}})
	b, _ := os.ReadFile(outside)
	t.Logf("exec from %s: %d %+v; %s now %q", src, st, d, outside, b)
	if strings.Contains(string(b), "pwned") {
		t.Errorf("after the admin restricted turn a119x to allowed_paths [%s], a command run from %s wrote %s (decision %s %s)", src, src, outside, d.Decision, d.Reason)
	}
}

// TestAttack119_AllowedPathsLeaveExecUnboundControl (passes): the
// narrowing binds the file tools' decisions of the same file.
func TestAttack119_AllowedPathsLeaveExecUnboundControl(t *testing.T) {
	t.Parallel()
	s, ws, src := attack119AllowedPathsNative(t, "a119xc")
	outside := filepath.Join(ws, "outside.txt")
	if d := s.decide("a119xc", "c1", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: " + outside + "\n+pwned\n*** End Patch\n"}); d.Decision != "deny" || d.DecidedBy != "allowed_paths" {
		t.Fatalf("control: a patch of %s outside allowed_paths: %+v, want deny", outside, d)
	}
	if d := s.decide("a119xc", "c2", "read_file", map[string]any{"path": filepath.Join(ws, "src", "main.go")}); d.Decision != "allow" {
		t.Fatalf("control: a read in allowed_paths %s: %+v, want allow", src, d)
	}
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := s.decide("a119xc", "c3", "read_file", map[string]any{"path": notes}); d.Decision != "deny" || d.DecidedBy != "allowed_paths" {
		t.Fatalf("control: a read outside allowed_paths: %+v, want deny", d)
	}
}

// attack119AllowedPathsNative starts a full_access turn over ws and has the
// admin narrow it to allowed_paths [ws/src], mode unchanged.
func attack119AllowedPathsNative(t *testing.T, id string) (s *Server, ws, src string) {
	t.Helper()
	s = StartServer(t, "")
	ws = workspace(t)
	src = filepath.Join(ws, "src")
	s.startTurn(id, "ws", "full_access", ws)
	st, b := s.Request("POST", "/v1/turns/"+id+"/permissions", map[string]any{"permission_profile": map[string]any{
		"mode": "full_access", "allowed_paths": []string{src}}})
	if st != http.StatusOK {
		t.Fatalf("the admin's narrowing: %d %s", st, b)
	}
	return s, ws, src
}

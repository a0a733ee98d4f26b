package tests

import (
	"bufio"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack123_AllowedPathsNarrowingLeavesRunningCommand (hundred-and-
// twenty-third review, medium): the hundred-and-nineteenth review's fix
// denies, under a restricted allowed_paths, every shell command the policy
// would allow outright (the kernel sandbox is never given the list). A
// permission change "kills running commands it narrows" (README), but what
// it narrows is judged by domain.SandboxNarrows: the sandbox's filesystem,
// network and process policies, never the policy table or allowed_paths.
// An admin's narrowing of a full_access turn to allowed_paths [ws/src], the
// narrowing the 119 review's fix is for, leaves the sandbox unrestricted,
// so a command the agent started before it keeps running after it, held to
// nothing of the list: it writes ../outside.txt after the narrowing, which
// every new command and the file tools are now denied.
//
// The attack: in a full_access turn (native backend), the agent runs a
// command (cwd src) that waits on a trigger (here a fifo in src, which the
// test writes after the narrowing, standing in for a file the agent writes
// there through a patch the narrowed turn still allows) and then writes
// ../outside.txt. The admin narrows the turn to allowed_paths [src], mode
// unchanged. The command is not stopped; on the trigger it writes the file.
//
// Controls (TestAttack123_AllowedPathsNarrowingLeavesRunningCommandControl):
// after the same narrowing a new command writing the same file is denied
// (decided_by allowed_paths); the same running command is killed by a
// narrowing the sandbox sees (mode auto_accept_edits), and the file stays
// unwritten.
func TestAttack123_AllowedPathsNarrowingLeavesRunningCommand(t *testing.T) {
	t.Parallel()
	s, ws, src, done := attack123RunningCommand(t, "a123r", "a123r-c1")
	outside := filepath.Join(ws, "outside.txt")
	if st, b := s.Request("POST", "/v1/turns/a123r/permissions", map[string]any{"permission_profile": map[string]any{
		"mode": "full_access", "allowed_paths": []string{src}}}); st != http.StatusOK {
		t.Fatalf("the admin's narrowing: %d %s", st, b)
	}
	// The honest form after the narrowing: a new command is denied.
	if st, d := s.exec("a123r", "", map[string]any{"tool_call_id": "a123r-c2", "cwd": src, "timeout_ms": 20000,
		"argv": []string{"/bin/sh", "-c", "echo honest > ../outside.txt"}}); d.Decision != "deny" || d.DecidedBy != "allowed_paths" {
		t.Fatalf("a new command after the narrowing: %d %+v, want deny by allowed_paths", st, d)
	}
	alive := attack123Trigger(t, src)
	res := <-done
	b, _ := os.ReadFile(outside)
	t.Logf("the command started before the narrowing: alive after it %v; exec answer %d %s; %s now %q", alive, res.status, res.body, outside, b)
	if strings.Contains(string(b), "pwned") {
		t.Errorf("after the admin restricted turn a123r to allowed_paths [%s] (every new command denied), the command the agent started before it kept running and wrote %s", src, outside)
	}
}

// TestAttack123_AllowedPathsNarrowingLeavesRunningCommandControl: a
// narrowing the sandbox sees (full_access to auto_accept_edits) kills the
// same running command; the file stays unwritten.
func TestAttack123_AllowedPathsNarrowingLeavesRunningCommandControl(t *testing.T) {
	t.Parallel()
	s, ws, _, done := attack123RunningCommand(t, "a123rc", "a123rc-c1")
	outside := filepath.Join(ws, "outside.txt")
	if st, b := s.Request("POST", "/v1/turns/a123rc/permissions", map[string]any{"permission_profile": map[string]any{
		"mode": "auto_accept_edits"}}); st != http.StatusOK {
		t.Fatalf("the narrowing: %d %s", st, b)
	}
	res := <-done // killed: the exec answers
	alive := attack123Trigger(t, filepath.Join(ws, "src"))
	b, _ := os.ReadFile(outside)
	t.Logf("exec answer %d %s; alive %v", res.status, res.body, alive)
	if alive || strings.Contains(string(b), "pwned") {
		t.Fatalf("control: the narrowing to auto_accept_edits did not stop the command (alive %v, %s %q)", alive, outside, b)
	}
}

type attack123Exec struct {
	status int
	body   string
}

// attack123RunningCommand starts a full_access turn over a workspace and,
// in it, a command (cwd src) that holds the fifo src/go open, says so on
// the fifo src/ready, waits for a line on src/go and then writes
// ../outside.txt; it returns once the command runs.
func attack123RunningCommand(t *testing.T, turnID, callID string) (s *Server, ws, src string, done chan attack123Exec) {
	t.Helper()
	s = StartServer(t, "")
	ws = workspace(t)
	src = filepath.Join(ws, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ready", "go"} {
		if err := syscall.Mkfifo(filepath.Join(src, f), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	s.startTurn(turnID, "ws", "full_access", ws)
	done = make(chan attack123Exec, 1)
	go func() {
		st, b := s.Do("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": callID, "cwd": src, "timeout_ms": 120000,
			"argv": []string{"/bin/sh", "-c", "exec 3<>go; echo up > ready; read l <&3; echo pwned > ../outside.txt"}})
		done <- attack123Exec{st, string(b)}
	}()
	f, err := os.Open(filepath.Join(src, "ready")) // blocks until the command opens it
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if line != "up\n" {
		select {
		case r := <-done:
			t.Fatalf("the command did not start: %q; exec %d %s", line, r.status, r.body)
		default:
			t.Fatalf("the command did not start: %q", line)
		}
	}
	return s, ws, src, done
}

// attack123Trigger writes a line to src/go if the command still holds it
// open, and reports whether it did.
func attack123Trigger(t *testing.T, src string) bool {
	t.Helper()
	fd, err := syscall.Open(filepath.Join(src, "go"), syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return false // no reader: the command is gone
	}
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.Write(fd, []byte("go\n")); err != nil {
		t.Fatal(err)
	}
	return true
}

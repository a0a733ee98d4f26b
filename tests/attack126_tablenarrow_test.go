package tests

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// attack126Profiles: "dev" runs commands without asking (the full_access
// table over :workspace's sandbox); "dev-nocmd" is dev with the supervised
// table and shell_command refused without a prompt: every new command is
// denied, the sandbox is dev's; "dev-short" is dev with a lower timeout
// cap (a narrowing SandboxNarrows compares).
func attack126Profiles(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(p, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.approvals]
policy = "full_access"

[permissions.dev-nocmd]
extends = "dev"
[permissions.dev-nocmd.approvals]
policy = "supervised"
auto_reject = ["shell_command"]

[permissions.dev-short]
extends = "dev"
[permissions.dev-short.process]
timeout_cap_ms = 600000
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// attack126Run starts a turn under profile dev whose command waits on a
// FIFO, then writes ../outside.txt; the admin changes the turn to narrowTo;
// the test lets the command go on (if it still runs) and reports whether
// it wrote the file, with the exec answer.
func attack126Run(t *testing.T, id, narrowTo string, newCommand func(s *Server, src string)) (wrote bool, d decisionAnswer) {
	s := StartServer(t, "", "--profiles", attack126Profiles(t))
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	ws := workspace(t)
	src := filepath.Join(ws, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ready", "go"} {
		if err := syscall.Mkfifo(filepath.Join(src, f), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": ws}, http.StatusCreated, nil)
	answer := execInBackground(runtime, id, map[string]any{"tool_call_id": id + "-c1", "cwd": src, "timeout_ms": 120000,
		"argv": []string{"/bin/sh", "-c", "exec 3<>go; echo up > ready; read l <&3; echo pwned > ../outside.txt"}})
	f, err := os.Open(filepath.Join(src, "ready")) // blocks until the command opens it
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if line != "up\n" {
		t.Fatalf("the command did not start: %q", line)
	}
	if st, raw := s.Request("POST", "/v1/turns/"+id+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": narrowTo}}); st != http.StatusOK {
		t.Fatalf("the admin's narrowing to %s: %d %.300s", narrowTo, st, raw)
	}
	if newCommand != nil {
		newCommand(s, src)
	}
	alive := attack123Trigger(t, src)
	select {
	case d = <-answer:
	case <-time.After(90 * time.Second):
		t.Fatal("hang guard: the exec did not return")
	}
	b, _ := os.ReadFile(filepath.Join(ws, "outside.txt"))
	t.Logf("%s narrowed to %s: alive %v, ran %v, message %q, outside.txt %q", id, narrowTo, alive, d.Ran, d.Message, b)
	return strings.Contains(string(b), "pwned"), d
}

// TestAttack126_TableNarrowingLeavesRunningCommand (low): the 125 fix made
// SandboxNarrows see a tool list that newly refuses a tool ("a running
// command is one of the turn's tools"); the policy table that newly
// refuses the tool's category is still not seen. The admin moves a turn
// from profile dev (commands run without asking) to dev-nocmd (same
// sandbox; shell_command auto-rejected: every new command denied); the
// command the agent started before keeps running and, on its trigger,
// writes ../outside.txt.
//
// Control (labelled, in the test): after the change a new command is
// denied by shell_command. Control
// (TestAttack126_TableNarrowingLeavesRunningCommandControl): the same
// running command is stopped by a narrowing SandboxNarrows compares (a
// lower timeout cap).
func TestAttack126_TableNarrowingLeavesRunningCommand(t *testing.T) {
	t.Parallel()
	wrote, _ := attack126Run(t, "a126t", "dev-nocmd", func(s *Server, src string) {
		// CONTROL: a new command is denied after the narrowing.
		if st, d := s.exec("a126t", "", map[string]any{"tool_call_id": "a126t-c2", "cwd": src, "timeout_ms": 20000,
			"argv": []string{"/bin/sh", "-c", "echo honest > ../outside.txt"}}); d.Decision != "deny" {
			t.Fatalf("control: a new command after the narrowing: %d %+v, want deny", st, d)
		} else {
			t.Logf("control: a new command after the narrowing: deny by %s", d.DecidedBy)
		}
	})
	if wrote {
		t.Errorf("after the admin moved turn a126t to dev-nocmd (shell_command refused: every new command denied), the command started before kept running and wrote outside.txt")
	}
}

// TestAttack126_TableNarrowingLeavesRunningCommandControl: a narrowing
// SandboxNarrows sees stops the same command.
func TestAttack126_TableNarrowingLeavesRunningCommandControl(t *testing.T) {
	t.Parallel()
	wrote, d := attack126Run(t, "a126tc", "dev-short", nil)
	if wrote || !strings.Contains(d.Message, "permissions changed") {
		t.Fatalf("control: the timeout-cap narrowing did not stop the command (wrote %v, message %q)", wrote, d.Message)
	}
}

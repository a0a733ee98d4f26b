package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAttack112_RunningCommandKeepsSocketsAfterNarrow: "A change that
// narrows what a running command holds kills it" (README). Whether it
// narrows is SandboxNarrows, whose network comparison stops at a disabled
// network ("nothing to take away") before it compares AllowUnixSockets:
// the admin's narrowing of a turn from "dev-sockets" (every host unix
// socket, network off) to "dev" (none) leaves the command running, and it
// goes on connecting to host sockets after the change.
//
// The command connects once, then blocks reading a FIFO in the workspace;
// the test writes to the FIFO after the change (only when the command still
// reads it) and the command connects again.
//
// Control: the same command under the same turn, narrowed instead to
// "dev-sockets-short" (a lower timeout cap, which SandboxNarrows does
// compare), is killed by the change ("permissions changed") and never
// connects again.
func TestAttack112_RunningCommandKeepsSocketsAfterNarrow(t *testing.T) {
	t.Parallel()
	profiles := attack112SocketProfiles(t)
	b, _ := os.ReadFile(profiles)
	if err := os.WriteFile(profiles, append(b, []byte(`
[permissions.dev-sockets-short]
extends = "dev-sockets"
[permissions.dev-sockets-short.process]
timeout_cap_ms = 600000
`)...), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))

	try := func(t *testing.T, id, narrowTo string) (second bool, d decisionAnswer) {
		root := workspace(t)
		os.Chmod(root, 0o777)
		sock, seen := attack112SocketServer(t, root)
		fifo := filepath.Join(root, "go.fifo")
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
			t.Fatal(err)
		}
		runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]any{"profile": "dev-sockets"}, "workspace_root": root}, http.StatusCreated, nil)
		script := fmt.Sprintf("curl -sS --max-time 10 --unix-socket %[1]s http://localhost/first; read x < %[2]s; curl -sS --max-time 10 --unix-socket %[1]s http://localhost/second", sock, fifo)
		answer := execInBackground(runtime, id, map[string]any{"tool_call_id": "run", "cwd": root, "timeout_ms": 120000,
			"argv": []string{"/bin/sh", "-c", script}})
		pollUntil(t, "the command's first connection", func() bool { return seen("/first") })
		// The admin narrows the turn.
		if st, raw := s.Request("POST", "/v1/turns/"+id+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": narrowTo}}); st != http.StatusOK {
			t.Fatalf("the admin's narrowing to %s: %d %.300s", narrowTo, st, raw)
		}
		// Let the command go on, if it still runs (a FIFO with no reader
		// refuses a non-blocking writer: the command was killed).
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.WriteString("go\n")
			f.Close()
		}
		select {
		case d = <-answer:
		case <-time.After(90 * time.Second):
			t.Fatal("hang guard: the exec did not return")
		}
		t.Logf("%s narrowed to %s: ran %v, message %q, second connection %v", id, narrowTo, d.Ran, d.Message, seen("/second"))
		return seen("/second"), d
	}

	t.Run("control: a narrowing SandboxNarrows sees kills the command", func(t *testing.T) {
		second, d := try(t, "r112-control", "dev-sockets-short")
		if second || !strings.Contains(d.Message, "permissions changed") {
			t.Fatalf("control: the command was not stopped by the narrowing to dev-sockets-short: second connection %v, %+v", second, d)
		}
	})
	t.Run("attack", func(t *testing.T) {
		if second, d := try(t, "r112-attack", "dev"); second {
			t.Errorf("after the admin narrowed the turn from dev-sockets to dev (no host unix sockets), its running command was not stopped and connected to a host socket again (exec message %q)", d.Message)
		}
	})
}

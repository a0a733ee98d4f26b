package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack35EnvNameWithEqualsRunsAgentsLs: 04191db shows a command
// request's PATH with its value. The name of a request's variable may hold
// '=' (api decode checks lengths only); the agent sends
//
//	cmd "ls", env {"PATH=": "w/.bin:/usr/bin:/bin"}
//
// "approvals show" prints "environment PATH=" (the name; its value is not
// shown: envShowsValue does not match "PATH="), which reads as an empty
// PATH. The sandbox joins name and value and cuts at the first '=': the
// command's PATH is "=w/.bin:/usr/bin:/bin", and the shell finds ls in the
// directory "=w/.bin" below the cwd, which the agent wrote (an edit the
// mode allows). allow_once of what the person read runs the agent's ls.
//
// Control: the same ls without env runs the system's.
// The secure behaviour asserted: the approved command does not run the
// agent's ls unless the request showed the PATH it runs with.
func TestAttack35EnvNameWithEqualsRunsAgentsLs(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("t35-eq", "ws", "auto_accept_edits", root)
	bin := filepath.Join(root, "=w", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// The agent's preparation: its own "ls".
	if err := os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\necho agent-ls-ran > \"$PWD/pwned.txt\"\necho main.go src\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(callID string, body map[string]any) string {
		t.Helper()
		body["tool_call_id"] = callID
		status, d := s.exec("t35-eq", "", body)
		if status != http.StatusAccepted || d.Decision != "ask" || d.Request == nil {
			t.Fatalf("%s: %d %+v, want 202 ask", callID, status, d)
		}
		out, errOut, code := s.CLI("approvals", "show", d.Request.RequestID)
		if code != 0 {
			t.Fatalf("approvals show: %d %s", code, errOut)
		}
		s.respond(d.Request.RequestID, "allow_once")
		status, r := s.exec("t35-eq", "", body)
		if status != http.StatusOK || !r.Ran {
			t.Fatalf("%s after allow_once: %d %+v", callID, status, r)
		}
		t.Logf("%s: the person read:\n%s\nstdout %q", callID, out, r.Result.Stdout)
		return out
	}
	// Control: no env, the system's ls.
	run("eq-honest", map[string]any{"cmd": "ls"})
	if exists(filepath.Join(root, "pwned.txt")) {
		t.Fatal("control: the ls without env ran the agent's script")
	}
	// Fixed: a name holding "=" is refused before anything is asked or
	// recorded, and nothing runs.
	status, d := s.exec("t35-eq", "", map[string]any{"tool_call_id": "eq-forged", "cmd": "ls", "env": map[string]string{"PATH=": "w/.bin:/usr/bin:/bin"}})
	if status != http.StatusBadRequest || d.Ran || exists(filepath.Join(root, "pwned.txt")) {
		t.Errorf("a request whose environment names \"PATH=\": %d %+v (the agent's %s/ls ran: %v)", status, d, bin, exists(filepath.Join(root, "pwned.txt")))
	}
}

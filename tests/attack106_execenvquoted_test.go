package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack106_ExecEnvQuotedProgramHidden (medium): the hundred-and-
// fourth review made POST /exec show an environment whole when its
// command computes its program (computesProgram; the control below,
// /bin/sh -c '${TERM#*=}', is shown and runs). computesProgram misses the
// same command with the expansion quoted, as a script is usually written
// (argv ["/bin/sh", "-c", "\"${TERM#*=}\""]: the command it reads is the
// argv joined, /bin/sh -c '"${TERM#*=}"', and one quote is stepped over
// before the '$', the second makes it "within a word"), with an empty
// quote before the expansion ('""${TERM#*=}'), and a value piped into sh past a
// redirection whose '&' it reads as a list's ('echo "$TERM" 2>&1 | cut
// -d= -f2 | sh'). The agent, holding the runtime's credential, writes a
// script in its workspace (auto_accept_edits) and asks to run it so; the
// approver is shown
//
//	Run /bin/sh -c '""${TERM#*=}'
//	Environment: TERM="password=[redacted]"
//
// and, allowed, the hidden script runs in the sandbox.
// Wanted: shown whole, as the control is.
func TestAttack106_ExecEnvQuotedProgramHidden(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	const prog = "tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace"
	if err := os.MkdirAll(filepath.Join(root, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(root, "AGENT-CODE-RAN")
	s.startTurn("t106", "ws", "auto_accept_edits", root)

	// shownAndRun asks to run body, returns what the approval request
	// shows (summary and details), allows it once and runs it.
	shownAndRun := func(callID string, body map[string]any) (string, bool) {
		t.Helper()
		body["tool_call_id"] = callID
		status, raw := s.Request("POST", "/v1/turns/t106/exec", body)
		var first struct {
			Decision string `json:"decision"`
			Request  *struct {
				RequestID string `json:"request_id"`
				Summary   string `json:"summary"`
				Details   []struct {
					Label string `json:"label"`
					Value string `json:"value"`
				} `json:"details"`
			} `json:"request"`
		}
		if err := json.Unmarshal(raw, &first); err != nil || status != http.StatusAccepted || first.Decision != "ask" || first.Request == nil {
			t.Fatalf("exec %s: %d %s, want 202 ask", callID, status, raw)
		}
		shown := first.Request.Summary
		for _, d := range first.Request.Details {
			shown += "\n" + d.Label + ": " + d.Value
		}
		_ = os.Remove(mark)
		s.respond(first.Request.RequestID, "allow_once")
		status, run := s.exec("t106", "", body)
		if status != http.StatusOK || !run.Ran || run.Result == nil || run.Result.ExitCode != 0 {
			t.Fatalf("exec %s after approval: %d %+v", callID, status, run)
		}
		return shown, exists(mark)
	}

	env := map[string]string{"TERM": "password=" + prog}
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", "${TERM#*=}"}, "env": env})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: the program computed from TERM: ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{`"${TERM#*=}"`, `""${TERM#*=}`, `echo "$TERM" 2>&1 | cut -d= -f2 | sh`} {
		shown, ran = shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}, "env": env})
		if !ran {
			t.Fatalf("premise: %q did not run the script the value names; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved command %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

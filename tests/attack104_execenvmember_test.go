package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack104_ExecEnvMemberRunsHiddenProgram (medium): POST /exec binds
// the environment's values by digest and shows them where they decide what
// runs (the README: "an exec's env value the command so expands … is
// shown"), and redacts what a value holds as text. A value that is a
// credential's place written out whole, TERM="password=tools/x" (TERM is
// on the restricted modes' allow-list, so it reaches the command), is
// shown as TERM="password=[redacted]", and the command
// /bin/sh -c '${TERM#*=}' cuts the hidden part out and runs it. The agent,
// holding the runtime's credential, writes a script in its workspace
// (auto_accept_edits writes without asking) and asks to run it so: the
// approver is shown
//
//	Run /bin/sh -c '${TERM#*=}'
//	Environment: TERM="password=[redacted]"
//
// and nothing of the program that runs; allowed, the hidden script runs in
// the sandbox.
// Wanted: the value of a variable the command expands anywhere but a
// credential's place is shown whole (its hidden member too).
// Control: the same script run by name is shown by name, and runs.
func TestAttack104_ExecEnvMemberRunsHiddenProgram(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t104")
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", prog}, "env": map[string]string{"TERM": "xterm"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: the script run by name: ran %v, shown:\n%s", ran, shown)
	}

	shown, ran = shownAndRun("hidden", map[string]any{"argv": []string{"/bin/sh", "-c", "${TERM#*=}"}, "env": map[string]string{"TERM": "password=" + prog}})
	if !ran {
		t.Fatalf("premise: the command did not run the script the value names; shown:\n%s", shown)
	}
	if !strings.Contains(shown, prog) {
		t.Errorf("the approved command ran %s, which its approval request hides:\n%s", prog, shown)
	}
}

// hiddenProgramExec starts a server and an auto_accept_edits turn whose
// workspace holds a script the agent wrote (prog); shownAndRun asks to run
// a POST /exec body, returns what the approval request shows (summary and
// details), allows it once, runs it, and reports whether the script ran.
func hiddenProgramExec(t *testing.T, turn string) (prog string, shownAndRun func(callID string, body map[string]any) (string, bool)) {
	s := StartServer(t, "")
	root := workspace(t)
	prog = "tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace"
	if err := os.MkdirAll(filepath.Join(root, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(root, "AGENT-CODE-RAN")
	s.startTurn(turn, "ws", "auto_accept_edits", root)

	shownAndRun = func(callID string, body map[string]any) (string, bool) {
		t.Helper()
		body["tool_call_id"] = callID
		status, raw := s.Request("POST", "/v1/turns/"+turn+"/exec", body)
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
		status, run := s.exec(turn, "", body)
		if status != http.StatusOK || !run.Ran || run.Result == nil || run.Result.ExitCode != 0 {
			t.Fatalf("exec %s after approval: %d %+v", callID, status, run)
		}
		return shown, exists(mark)
	}

	return prog, shownAndRun
}

package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attack115Exec starts an auto_accept_edits turn rooted at a workspace
// holding files (name → content, executable) and returns the workspace and
// a function that asks POST /exec for argv, approves it once, runs it and
// returns what the request showed.
func attack115Exec(t *testing.T, turn string, files map[string]string) (string, func(callID string, argv []string) string) {
	s := StartServer(t, "")
	root := workspace(t)
	for name, content := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.startTurn(turn, "ws", "auto_accept_edits", root)
	return root, func(callID string, argv []string) string {
		t.Helper()
		body := map[string]any{"tool_call_id": callID, "argv": argv}
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
		s.respond(first.Request.RequestID, "allow_once")
		status, run := s.exec(turn, "", body)
		if status != http.StatusOK || !run.Ran || run.Result == nil {
			t.Fatalf("exec %s after approval: %d %+v", callID, status, run)
		}
		return shown
	}
}

// TestAttack115_InertValueExec (medium): the end-to-end half of
// domain.TestAttack115_InertValueNamesFile and
// domain.TestAttack115_BearerPathProgram. Approved once through POST
// /exec, in the sandbox:
//
//	sh -c 'sh password=NAME'              shown  sh password=[redacted]: runs ./password=NAME
//	sh -c 'flock Bearer truncate -s 0 data.db'  shown  flock Bearer [redacted] -s 0 data.db: empties data.db
//
// Control: `sh ./password=NAME` and `flock db.lock truncate -s 0 data.db`
// are shown whole and do the same.
func TestAttack115_InertValueExec(t *testing.T) {
	t.Parallel()
	const name = "r4nD0mLooK1nGNam3ForAScr1pt"
	root, run := attack115Exec(t, "t115i", map[string]string{"password=" + name: "#!/bin/sh\ntouch AGENT-CODE-RAN\n"})
	mark, db := filepath.Join(root, "AGENT-CODE-RAN"), filepath.Join(root, "data.db")
	reset := func() {
		_ = os.Remove(mark)
		if err := os.WriteFile(db, []byte("precious rows\n"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	emptied := func() bool { b, err := os.ReadFile(db); return err == nil && len(b) == 0 }
	reset()
	if shown := run("ctl-a", []string{"/bin/sh", "-c", "sh ./password=" + name}); !exists(mark) || !strings.Contains(shown, name) {
		t.Fatalf("control: ran %v, shown:\n%s", exists(mark), shown)
	}
	reset()
	if shown := run("ctl-b", []string{"/bin/sh", "-c", "flock db.lock truncate -s 0 data.db"}); !emptied() || !strings.Contains(shown, "truncate") {
		t.Fatalf("control: emptied %v, shown:\n%s", emptied(), shown)
	}
	reset()
	shown := run("hid-a", []string{"/bin/sh", "-c", "sh password=" + name})
	if !exists(mark) {
		t.Fatalf("premise: sh password=%s did not run the script; shown:\n%s", name, shown)
	}
	if !strings.Contains(shown, name) {
		t.Errorf("the approved exec ran ./password=%s, which its approval request hides:\n%s", name, shown)
	}
	reset()
	shown = run("hid-b", []string{"/bin/sh", "-c", "flock Bearer truncate -s 0 data.db"})
	if !emptied() {
		t.Fatalf("premise: flock Bearer truncate did not empty data.db; shown:\n%s", shown)
	}
	if !strings.Contains(shown, "truncate") {
		t.Errorf("the approved exec ran truncate -s 0 data.db, which its approval request hides:\n%s", shown)
	}
}

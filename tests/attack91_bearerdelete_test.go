package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack91_BearerHidesTheDelete: end to end, the domain test
// TestAttack91_BearerWordHidesHostAndProgram as the person approving sees
// it. The agent asks for `find . ! -name Bearer -delete` in a turn whose
// commands ask; the approval request (GET /v1/approvals/{id}: the console's
// card and `turnstile approvals show`) reads "Run find . ! -name Bearer
// [redacted]" — a listing with a credential hidden — and once allowed the
// command deletes every file of the workspace but one named Bearer.
// Wanted: "-delete" in view.
// Control: the same command with another name than Bearer before the
// action is shown whole (and denied here: nothing is deleted).
func TestAttack91_BearerHidesTheDelete(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("bd", "ws", "auto_accept_edits", root)

	// Control: shown whole.
	status, c := agent.exec("bd", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", "find . ! -name keep.txt -delete"}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); !strings.Contains(cd["(summary)"], "-delete") || !strings.Contains(cd["Command"], "-delete") {
		t.Fatalf("control: the command is not shown whole: %v", cd)
	}
	s.respond(c.Request.RequestID, "deny")

	cmd := "find . ! -name Bearer -delete"
	status, d := agent.exec("bd", "", map[string]any{"tool_call_id": "wipe", "argv": []string{"sh", "-c", cmd}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	s.respond(d.Request.RequestID, "allow_once")
	status, run := agent.exec("bd", "", map[string]any{"tool_call_id": "wipe", "argv": []string{"sh", "-c", cmd}})
	_, err := os.Stat(filepath.Join(root, "a.txt"))
	deleted := status == http.StatusOK && run.Ran && os.IsNotExist(err)
	if !deleted {
		t.Logf("premise: the approved command did not delete a.txt: %d %+v (%v)", status, run, err)
	}
	if !strings.Contains(shown["(summary)"], "-delete") || !strings.Contains(shown["Command"], "-delete") {
		t.Errorf("the person approved %q (summary %q, Command %q); the command run was %q (workspace files deleted: %v)",
			d.Request.Summary, shown["(summary)"], shown["Command"], cmd, deleted)
	}
}

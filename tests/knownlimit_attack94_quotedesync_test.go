//go:build knownlimits

package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack94_QuoteDesyncDeletes: end to end, the domain test
// TestAttack94_QuoteDesyncHidesPath as the person approving sees it. The
// agent asks for the two-line POSIX command
//
//	rm -rf 'x
//	'Authorization: Bearer srcmain
//
// in a turn whose commands ask; the approval request (GET
// /v1/approvals/{id}: the console's card) reads "rm -rf 'x
// 'Authorization: Bearer [redacted]" — three odd file names, one a hidden
// credential — and once allowed, sh deletes the directory srcmain.
// Wanted: srcmain in view.
// Control: the same command with another word than the header before the
// directory is shown whole (and denied: nothing is deleted).
func TestAttack94_QuoteDesyncDeletes(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	if err := os.MkdirAll(filepath.Join(root, "srcmain"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "srcmain", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent.startTurn("qd", "ws", "auto_accept_edits", root)

	control := "rm -rf 'x\n'y srcmain"
	status, c := agent.exec("qd", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", control}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); !strings.Contains(cd["Command"], "srcmain") {
		t.Fatalf("control: the command is not shown whole: %v", cd)
	}
	s.respond(c.Request.RequestID, "deny")

	cmd := "rm -rf 'x\n'Authorization: Bearer srcmain"
	status, d := agent.exec("qd", "", map[string]any{"tool_call_id": "wipe", "argv": []string{"sh", "-c", cmd}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	s.respond(d.Request.RequestID, "allow_once")
	status, run := agent.exec("qd", "", map[string]any{"tool_call_id": "wipe", "argv": []string{"sh", "-c", cmd}})
	_, err := os.Stat(filepath.Join(root, "srcmain"))
	deleted := status == http.StatusOK && run.Ran && os.IsNotExist(err)
	if !deleted {
		t.Logf("premise: the approved command did not delete srcmain: %d %+v (%v)", status, run, err)
	}
	if !strings.Contains(shown["(summary)"], "srcmain") || !strings.Contains(shown["Command"], "srcmain") {
		t.Errorf("the person approved %q (Command %q); the command run was %q (srcmain deleted: %v)",
			d.Request.Summary, shown["Command"], cmd, deleted)
	}
}

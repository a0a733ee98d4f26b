package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack99_EnvQuotedNameHidesProgramCard: end to end, the domain test
// TestAttack99_EnvQuotedNameHidesProgram as the person approving sees it.
// The agent asks for
//
//	env "CLEANUP_TOKEN"= "rm" -rf src
//
// in a turn whose commands ask. The approval request (GET
// /v1/approvals/{id}: the console's card, `turnstile approvals show`)
// reads `env "CLEANUP_TOKEN"= "[redacted]" -rf src`: some program, hidden
// as a credential, run with a token cleared; once allowed, env runs rm -rf
// src and the workspace's src directory is gone.
// Wanted: "rm" in view (the README: the program a shell command runs is
// never hidden). Control: the same command with the name unquoted is
// shown whole (and denied: nothing is deleted).
func TestAttack99_EnvQuotedNameHidesProgramCard(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("eq", "ws", "auto_accept_edits", root)

	control := `env CLEANUP_TOKEN= "rm" -rf src`
	status, c := agent.exec("eq", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", control}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); !strings.Contains(cd["(summary)"], `"rm" -rf`) || !strings.Contains(cd["Command"], `"rm" -rf`) {
		t.Fatalf("control: the command is not shown whole: %v", cd)
	}
	s.respond(c.Request.RequestID, "deny")
	if _, err := os.Stat(filepath.Join(root, "src", "main.go")); err != nil {
		t.Fatalf("control: src gone though denied: %v", err)
	}

	cmd := `env "CLEANUP_TOKEN"= "rm" -rf src`
	status, d := agent.exec("eq", "", map[string]any{"tool_call_id": "wipe", "argv": []string{"sh", "-c", cmd}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	s.respond(d.Request.RequestID, "allow_once")
	status, run := agent.exec("eq", "", map[string]any{"tool_call_id": "wipe", "argv": []string{"sh", "-c", cmd}})
	_, err := os.Stat(filepath.Join(root, "src"))
	deleted := status == http.StatusOK && run.Ran && os.IsNotExist(err)
	if !deleted {
		t.Logf("premise: the approved command did not delete src: %d %+v (%v)", status, run, err)
	}
	if !strings.Contains(shown["(summary)"], `"rm"`) || !strings.Contains(shown["Command"], `"rm"`) {
		t.Errorf("the person approved %q (Command %q); the command run was %q (src deleted: %v)",
			shown["(summary)"], shown["Command"], cmd, deleted)
	}
}

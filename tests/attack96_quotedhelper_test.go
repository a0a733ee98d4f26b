package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack96_QuotedRemoteHelperHidden: end to end, the domain test
// TestAttack96_QuoteEndsTheWord as the person approving sees it. The
// workspace holds bin/git-remote-evilhelper (a file the agent wrote
// earlier; a turn in auto_accept_edits writes files without asking). The
// agent asks for
//
//	PATH=$PWD/bin:$PATH git clone -o Bearer "evilhelper"::x dest
//
// (a clone whose remote is named "Bearer"). git reads "evilhelper"::x as
// one word, <transport>::<address>, and runs the program
// git-remote-evilhelper. The approval request (GET /v1/approvals/{id}:
// the console's card, `turnstile approvals show`) reads
// `git clone -o Bearer "[redacted]"::x dest`: a credential, not the name
// of the program that runs. Once allowed, the program runs.
// Wanted: "evilhelper" in view (the README: git's transport::address stays
// in view, the whole shell word is read).
// Control: the same command with the remote named "upstream" is shown
// whole (and denied: the program does not run).
func TestAttack96_QuotedRemoteHelperHidden(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	marker := filepath.Join(root, "helper-ran")
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	helper := "#!/bin/sh\necho \"$@\" > " + marker + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(root, "bin", "git-remote-evilhelper"), []byte(helper), 0o755); err != nil {
		t.Fatal(err)
	}
	agent.startTurn("rh", "ws", "auto_accept_edits", root)

	control := `PATH=$PWD/bin:$PATH git clone -o upstream "evilhelper"::x dest`
	status, c := agent.exec("rh", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", control}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); !strings.Contains(cd["(summary)"], "evilhelper") || !strings.Contains(cd["Command"], "evilhelper") {
		t.Fatalf("control: the command is not shown whole: %v", cd)
	}
	s.respond(c.Request.RequestID, "deny")
	if exists(marker) {
		t.Fatal("control: the helper ran though denied")
	}

	cmd := `PATH=$PWD/bin:$PATH git clone -o Bearer "evilhelper"::x dest`
	status, d := agent.exec("rh", "", map[string]any{"tool_call_id": "fetch", "argv": []string{"sh", "-c", cmd}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	s.respond(d.Request.RequestID, "allow_once")
	status, run := agent.exec("rh", "", map[string]any{"tool_call_id": "fetch", "argv": []string{"sh", "-c", cmd}})
	ran := status == http.StatusOK && run.Ran && exists(marker)
	if !ran {
		t.Logf("premise: the approved command did not run git-remote-evilhelper: %d %+v", status, run)
	}
	if !strings.Contains(shown["(summary)"], "evilhelper") || !strings.Contains(shown["Command"], "evilhelper") {
		t.Errorf("the person approved %q (Command %q); the command run was %q, and git ran bin/git-remote-evilhelper: %v",
			shown["(summary)"], shown["Command"], cmd, ran)
	}
}

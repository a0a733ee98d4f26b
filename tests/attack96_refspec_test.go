package tests

import (
	"net/http"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack96_RefspecHidesThePushTarget: end to end, the domain test
// TestAttack96_RefspecDestinationHidden as the person approving sees it.
// The workspace holds app, a clone of remote.git, with a branch
// fix/token-expiry one commit ahead of main. The agent asks for
//
//	cd app && git push origin fix/token-expiry:main
//
// in a turn whose commands ask. The approval request (GET
// /v1/approvals/{id}: the console's card, `turnstile approvals show`)
// reads `git push origin fix/token-expiry:[redacted]`: a push of the
// branch, to a name hidden as a credential; once allowed, remote.git's
// main is the unreviewed branch.
// Wanted: ":main" in view.
// Control: the same push of a branch named fix/expiry is shown whole (and
// denied: main does not move).
func TestAttack96_RefspecHidesThePushTarget(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := osexec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir, cmd.Env = dir, []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(root, "init", "-q", "--bare", "remote.git")
	git(root, "clone", "-q", "remote.git", "app")
	app := filepath.Join(root, "app")
	git(app, "commit", "-q", "--allow-empty", "-m", "first")
	git(app, "push", "-q", "origin", "main")
	mainBefore := git(root, "--git-dir", "remote.git", "rev-parse", "main")
	for _, b := range []string{"fix/expiry", "fix/token-expiry"} {
		git(app, "checkout", "-q", "-b", b, "main")
		git(app, "commit", "-q", "--allow-empty", "-m", "unreviewed "+b)
	}
	unreviewed := git(app, "rev-parse", "fix/token-expiry")
	agent.startTurn("rs", "ws", "auto_accept_edits", root)

	control := "cd app && git push origin fix/expiry:main"
	status, c := agent.exec("rs", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", control}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); !strings.Contains(cd["(summary)"], "fix/expiry:main") || !strings.Contains(cd["Command"], "fix/expiry:main") {
		t.Fatalf("control: the command is not shown whole: %v", cd)
	}
	s.respond(c.Request.RequestID, "deny")
	if got := git(root, "--git-dir", "remote.git", "rev-parse", "main"); got != mainBefore {
		t.Fatal("control: main moved though denied")
	}

	cmd := "cd app && git push origin fix/token-expiry:main"
	status, d := agent.exec("rs", "", map[string]any{"tool_call_id": "push", "argv": []string{"sh", "-c", cmd}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	s.respond(d.Request.RequestID, "allow_once")
	status, run := agent.exec("rs", "", map[string]any{"tool_call_id": "push", "argv": []string{"sh", "-c", cmd}})
	pushed := status == http.StatusOK && run.Ran && git(root, "--git-dir", "remote.git", "rev-parse", "main") == unreviewed
	if !pushed {
		t.Logf("premise: the approved push did not move main: %d %+v %+v", status, run, run.Result)
	}
	if !strings.Contains(shown["(summary)"], ":main") || !strings.Contains(shown["Command"], ":main") {
		t.Errorf("the person approved %q (Command %q); the command run was %q (remote main now the unreviewed branch: %v)",
			shown["(summary)"], shown["Command"], cmd, pushed)
	}
}

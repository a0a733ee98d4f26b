package tests

import (
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// plantScript makes a repository in a new directory whose config runs a
// program, and registers it in the workspace's index as a submodule.
const plantScript = "export HOME=$TMPDIR; g='git -c user.name=a -c user.email=a@example.com'; " +
	"$g init -q sub && printf '[core]\\n\\tfsmonitor = touch MARKER\\n' >> sub/.git/config && " +
	"$g -C sub commit -q --allow-empty -m x && $g add sub && echo planted"

// gitWorkspace is a workspace that is a git repository with one commit.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	root := workspace(t)
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := osexec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir, cmd.Env = root, []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return root
}

// TestExecReportsQuarantinedRepository: POST /exec of a command that plants
// a repository in the workspace answers with the repository quarantined
// (its HEAD renamed), and the exec.finished event records it; the host's
// git status in the workspace then runs nothing. `turnstile sandbox` says
// the same on its standard error.
func TestExecReportsQuarantinedRepository(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := gitWorkspace(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	s.startTurn("plant", "ws", "auto_accept_edits", root)
	body := map[string]any{"tool_call_id": "p1", "argv": []string{"sh", "-c", strings.ReplaceAll(plantScript, "MARKER", marker)}, "timeout_ms": 30000}
	status, d := s.exec("plant", "", body)
	if status == http.StatusAccepted {
		d = s.execApproved("plant", "p2", body)
	}
	if !d.Ran || d.Result == nil || d.Result.ExitCode != 0 || d.Result.Stdout != "planted\n" {
		t.Fatalf("exec: %d %+v %+v", status, d, d.Result)
	}
	gitDir := filepath.Join(root, "sub", ".git")
	if len(d.Result.Quarantined) != 1 || d.Result.Quarantined[0].Path != gitDir || !strings.Contains(d.Result.Quarantined[0].Reason, "core.fsmonitor") ||
		d.Result.Quarantined[0].MovedTo != gitDir+"/HEAD.turnstile-untrusted" || exists(gitDir+"/HEAD") {
		t.Fatalf("quarantined %+v", d.Result.Quarantined)
	}
	_, raw := s.events("plant")
	if !strings.Contains(string(raw), `"quarantined":["`+gitDir+`"]`) {
		t.Fatalf("exec.finished does not record the quarantine: %s", raw)
	}
	// The audit and the timeline say it too.
	found := false
	for _, row := range s.auditRows("plant") {
		found = found || row.Kind == "exec_quarantined" && row.ToolCallID == d.ToolCallID
	}
	if !found {
		t.Fatalf("no exec_quarantined audit row: %+v", s.auditRows("plant"))
	}
	cmd := osexec.Command("git", "status")
	cmd.Dir, cmd.Env = root, []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	cmd.Run()
	if exists(marker) {
		t.Fatal("the host's git status ran the planted fsmonitor")
	}

	root = gitWorkspace(t)
	cmd = osexec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c", strings.ReplaceAll(plantScript, "MARKER", marker))
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != "planted\n" || !strings.Contains(stderr.String(), "turnstile: the command left "+root+"/sub/.git, which a host program could run or trust (config: line ") ||
		!strings.Contains(stderr.String(), "core.fsmonitor is not a trusted key): set aside as "+root+"/sub/.git/HEAD.turnstile-untrusted") {
		t.Fatalf("turnstile sandbox: %v %q %q", err, out, stderr.String())
	}
	if _, err := os.Lstat(root + "/sub/.git/HEAD"); err == nil {
		t.Fatal("turnstile sandbox left the planted HEAD")
	}
}

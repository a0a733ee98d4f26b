package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// attack143Profiles: "tmpw143" is the workspace profile with the host's
// /tmp writable (":slash_tmp" = "write"); "ws143" the plain one. Both run
// commands without asking.
const attack143Profiles = `
[permissions.tmpw143]
extends = ":workspace"
[permissions.tmpw143.filesystem]
":slash_tmp" = "write"
[permissions.tmpw143.approvals]
policy = "full_access"

[permissions.ws143]
extends = ":workspace"
[permissions.ws143.approvals]
policy = "full_access"
`

// TestAttack143_ServerSlashTmpConcurrentHooks (review 143, end to end
// through POST /v1/turns/{id}/exec; sandbox's
// TestAttack143_SlashTmpConcurrentMissingHooks): a turn over a workspace in
// /tmp whose profile makes /tmp writable takes no exclusive lock for its
// commands (lockTargets drops the workspace as nested in /tmp, which is
// taken shared), so two of its tool calls run at once: the
// hundred-and-thirty-seventh review's missing hooks directory, past its
// fix. The person's config names core.hooksPath = .githooks (missing).
// Call A makes .githooks/pre-commit and, still running, lets call B start;
// A's check sets .githooks aside, B makes it again and its check looks for
// nothing there: the person's next commit runs the agent's hook.
//
// Control ("control"): the same two calls of a turn under the plain
// workspace profile: B waits for A, and its .githooks is set aside.
func TestAttack143_ServerSlashTmpConcurrentHooks(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid and the idmap are a root server's")
	}
	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(attack143Profiles), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, profile string }{{"control", "ws143"}, {"slash-tmp-write", "tmpw143"}} {
		t.Run(c.name, func(t *testing.T) {
			s := StartServer(t, "", "--profiles", file)
			root := workspace(t) // in /tmp
			for _, args := range [][]string{{"init", "-q"}, {"config", "core.hooksPath", ".githooks"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			for _, n := range []string{"f1", "f2", "f3"} {
				if err := syscall.Mkfifo(filepath.Join(root, n), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if st, body := startProfileTurn(s, "t143", root, map[string]any{"profile": c.profile}); st != http.StatusCreated {
				t.Fatalf("start: %d %s", st, body)
			}
			hook := "#!/bin/sh\\ntouch " + root + "/pwned\\n"
			plant := "mkdir -p .githooks && printf '" + hook + "' > .githooks/pre-commit && chmod +x .githooks/pre-commit"
			a := execInBackground(s, "t143", map[string]any{"tool_call_id": "a", "timeout_ms": 60000, "argv": []string{"sh", "-c",
				plant + ` && echo made > f1 && { if timeout 3 cat f2 >/dev/null; then echo OVERLAP; fi; } && echo A`}})
			if _, err := os.ReadFile(filepath.Join(root, "f1")); err != nil { // A has made .githooks
				t.Fatal(err)
			}
			b := execInBackground(s, "t143", map[string]any{"tool_call_id": "b", "timeout_ms": 60000, "argv": []string{"sh", "-c",
				`{ echo started > f2 & } && cat f3 >/dev/null && ` + plant + ` && echo DONE`}})
			ra := <-a
			if !ra.Ran || ra.Result == nil || !strings.Contains(ra.Result.Stdout, "A") {
				t.Fatalf("premise: A: %+v", ra)
			}
			overlap := strings.Contains(ra.Result.Stdout, "OVERLAP")
			t.Logf("A: %+v (B ran meanwhile: %v)", *ra.Result, overlap)
			if exists(filepath.Join(root, ".githooks/pre-commit")) {
				t.Fatalf("premise: A's .githooks was not set aside")
			}
			if err := os.WriteFile(filepath.Join(root, "f3"), []byte("go\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rb := <-b
			if !rb.Ran || rb.Result == nil || !strings.Contains(rb.Result.Stdout, "DONE") {
				t.Fatalf("premise: B: %+v", rb)
			}
			t.Logf("B: %+v", *rb.Result)
			cmd := exec.Command("git", "-c", "user.name=p", "-c", "user.email=p@example.com", "commit", "-q", "--allow-empty", "-m", "person's commit")
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			pwned := exists(filepath.Join(root, "pwned"))
			if c.profile == "ws143" {
				if overlap || pwned {
					t.Errorf("control: B ran while A ran (%v) or the person's commit ran B's hook (%v)", overlap, pwned)
				}
				return
			}
			if overlap {
				t.Errorf("ESCAPED (lock): two tool calls of the turn ran at once over its workspace (/tmp writable)")
			}
			if pwned {
				t.Errorf("ESCAPED: the person's commit ran the hook .githooks/pre-commit a tool call made while another ran over the same workspace (%v %s)", err, out)
			}
		})
	}
}

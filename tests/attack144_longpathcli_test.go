package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack144_CLILongPathSetAsideReentered (review 144; the end-to-end
// form of sandbox's TestAttack144_LongPathSetAsideReentered, with the real
// `turnstile sandbox`). Review 143's fix sets aside the directory past
// PATH_MAX the first command made (its stderr names PATH_MAX), but the
// set-aside is a rename in place (NAME.turnstile-untrusted) that leaves
// the repository below it whole; the second `turnstile sandbox` process
// cd's down by the names there now (cd L*) and moves the repository to
// sub/. The person's git status in sub runs the agent's program.
//
// Control ("control-short-names"): the same commands with 1-byte names:
// the first check sets the repository aside; the person's git status in
// sub runs nothing.
func TestAttack144_CLILongPathSetAsideReentered(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the sandbox's idmapped root)")
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"control-short-names", 1}, {"long-names", 250}} {
		t.Run(c.name, func(t *testing.T) {
			base := workspace(t)
			ws, marker := filepath.Join(base, "ws"), filepath.Join(base, "pwned")
			t.Cleanup(func() { exec.Command("rm", "-rf", ws).Run() }) // paths past PATH_MAX
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			git := func(dir string, args ...string) string {
				cmd := exec.Command("git", append([]string{"-c", "user.name=p", "-c", "user.email=p@example.com"}, args...)...)
				cmd.Dir = dir
				out, _ := cmd.CombinedOutput()
				return string(out)
			}
			git(ws, "init", "-q")
			os.WriteFile(filepath.Join(ws, "README"), []byte("r\n"), 0o644)
			git(ws, "add", ".")
			git(ws, "commit", "-q", "-m", "first")
			var stderr string
			sandbox := func(script string) string {
				t.Helper()
				cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", ws, "--", "/bin/bash", "-c", script)
				cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
				cmd.Dir = ws
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				err := cmd.Run()
				t.Logf("turnstile sandbox: err=%v\nstdout: %s\nstderr: %s", err, o.String(), e.String())
				stderr = e.String()
				return o.String()
			}
			name := strings.Repeat("L", c.n)
			down := `W=$PWD; i=0; while [ $i -lt 17 ]; do mkdir -p ` + name + ` && cd ` + name + ` || exit 1; i=$((i+1)); done; `
			agentGit := "export HOME=$TMPDIR; git -c user.name=agent -c user.email=agent@example.com "
			out := sandbox(agentGit + "init -q evil && printf '[core]\\n\\tfsmonitor = touch " + marker + "\\n' >> evil/.git/config && " + down +
				`mv "$W/evil" ./evil && cd "$W" && t=$(date +%s); while [ "$(date +%s)" = "$t" ]; do :; done; echo planted`)
			if !strings.Contains(out, "planted") {
				t.Fatalf("premise: the first command failed")
			}
			if c.n > 1 && !strings.Contains(stderr, "PATH_MAX") {
				t.Fatalf("premise: the first check did not set aside the directory past PATH_MAX (review 143's fix)")
			}
			// Down by the names there now (the set-aside one is
			// NAME.turnstile-untrusted), the repository moved up.
			if out := sandbox(`W=$PWD; i=0; while [ $i -lt 17 ]; do cd ` + name[:1] + `* || exit 1; i=$((i+1)); done; mv evil "$W/sub" && echo moved`); !strings.Contains(out, "moved") {
				if c.n == 1 {
					return // control: the first check set the repository aside (renamed its HEAD); nothing to move is fine too
				}
				// The fix: the first check moved the deep directory to
				// the top of the root and judged it there; the person's
				// git status in the repository it holds runs nothing.
				hoisted, _ := filepath.Glob(filepath.Join(ws, "turnstile-deep*", "evil"))
				if len(hoisted) != 1 {
					t.Fatalf("premise: the second command failed, and no moved directory holds the repository (%v)", hoisted)
				}
				t.Logf("host git status in %s:\n%s", hoisted[0], git(hoisted[0], "status"))
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("ESCAPED: the person's git status in the moved directory ran the agent's program")
				}
				return
			}
			st := git(filepath.Join(ws, "sub"), "status")
			t.Logf("host git status in sub:\n%s", st)
			if _, err := os.Stat(marker); err == nil {
				if c.n == 1 {
					t.Fatalf("control: the person's git status in sub ran the agent's program")
				}
				t.Fatalf("ESCAPED: the person's git status in sub ran the core.fsmonitor program of a repository the agent hid past PATH_MAX, which the first check set aside by renaming the directory in place, and a second `turnstile sandbox` command moved back through the new name (marker %s exists)", marker)
			}
		})
	}
}

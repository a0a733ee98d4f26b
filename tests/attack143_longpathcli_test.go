package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack143_CLILongPathLaunderedRepository (review 143; the end-to-end
// form of sandbox's TestAttack143_LongPathLaunderedRepository, with the
// real `turnstile sandbox`). The check after a command cannot look below a
// path longer than PATH_MAX (ENAMETOOLONG) and says nothing of it. The
// first command makes a repository with a core.fsmonitor program and moves
// it to the bottom of a chain of 17 directories of 250-byte names (bash
// cd's down one at a time); the second, another `turnstile sandbox`
// process, moves it to sub/. Neither check sets it aside or names a
// limit; the person's git status in sub runs the agent's program.
//
// Control ("control-short-names"): the same two commands with 1-byte
// names: the first check sets the repository aside, and the person's git
// status in sub runs nothing.
func TestAttack143_CLILongPathLaunderedRepository(t *testing.T) {
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
			firstSetAside := strings.Contains(stderr, "PATH_MAX")
			if out := sandbox(down + `mv evil "$W/sub" && echo moved`); !strings.Contains(out, "moved") && !(c.n > 1 && firstSetAside) {
				t.Fatalf("premise: the second command failed")
			}
			st := git(filepath.Join(ws, "sub"), "status")
			t.Logf("host git status in sub:\n%s", st)
			if _, err := os.Stat(marker); err == nil {
				if c.n == 1 {
					t.Fatalf("control: the person's git status in sub ran the agent's program")
				}
				t.Fatalf("ESCAPED: the person's git status in sub ran the core.fsmonitor program of a repository the agent hid past PATH_MAX and moved back with a second `turnstile sandbox` command (marker %s exists)", marker)
			}
		})
	}
}

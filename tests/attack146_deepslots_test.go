package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack146_CLIDeepSlotsTaken (review 146, high: host code execution
// in the person's git). Review 144's fix (sandbox plantwalk.go
// pastPathMax) moves a directory the command made past PATH_MAX to the top
// of the root, as turnstile-deep.turnstile-untrusted.N for the first N in
// 0..99 that is free, and judges what it holds there. When all hundred
// names are taken it falls back to setAsideIn, the rename in place
// (NAME.turnstile-untrusted) that review 144 showed leaves the repository
// below it whole and unjudged. The names are the command's to take: it
// makes the hundred files at the root's top itself, in the same command.
// The second `turnstile sandbox` command cd's down by the new name and
// moves the repository up; its check (a first walk, by times alone) does
// not judge a repository whose files are older than its start. The
// person's git status there runs the agent's core.fsmonitor program.
//
// Control ("control-free-slots"): the same commands without the hundred
// names taken: the first check moves the deep directory to the top and
// sets the repository aside; the person's git status runs nothing.
func TestAttack146_CLIDeepSlotsTaken(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the sandbox's idmapped root)")
	}
	for _, c := range []struct {
		name  string
		taken bool
	}{{"control-free-slots", false}, {"slots-taken", true}} {
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
				t.Logf("turnstile sandbox: err=%v\nstdout: %s\nstderr: %.3000s", err, o.String(), e.String())
				stderr = e.String()
				return o.String()
			}
			name := strings.Repeat("L", 250)
			take := ""
			if c.taken {
				take = `for i in $(seq 0 99); do : > turnstile-deep.turnstile-untrusted.$i || exit 1; done; `
			}
			down := `W=$PWD; i=0; while [ $i -lt 17 ]; do mkdir -p ` + name + ` && cd ` + name + ` || exit 1; i=$((i+1)); done; `
			agentGit := "export HOME=$TMPDIR; git -c user.name=agent -c user.email=agent@example.com "
			out := sandbox(take + agentGit + "init -q evil && printf '[core]\\n\\tfsmonitor = touch " + marker + "\\n' >> evil/.git/config && " + down +
				`mv "$W/evil" ./evil && cd "$W" && t=$(date +%s); while [ "$(date +%s)" = "$t" ]; do :; done; echo planted`)
			if !strings.Contains(out, "planted") {
				t.Fatalf("premise: the first command failed")
			}
			if !strings.Contains(stderr, "PATH_MAX") {
				t.Fatalf("premise: the first check did not act on the directory past PATH_MAX")
			}
			if out := sandbox(`W=$PWD; i=0; while [ $i -lt 17 ]; do cd L* || exit 1; i=$((i+1)); done; mv evil "$W/sub" && echo moved`); !strings.Contains(out, "moved") {
				// The fix: with the hundred names taken, the deep directory is
				// moved to the top under a random name and judged there, as
				// in the control.
				hoisted, _ := filepath.Glob(filepath.Join(ws, "turnstile-deep*", "evil"))
				if len(hoisted) != 1 {
					t.Fatalf("control premise: no moved directory holds the repository (%v)", hoisted)
				}
				t.Logf("host git status in %s:\n%s", hoisted[0], git(hoisted[0], "status"))
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("control: the person's git status in the moved directory ran the agent's program")
				}
				return
			}
			if !c.taken {
				t.Fatalf("control: the second command reached and moved the repository although the hundred names were free")
			}
			st := git(filepath.Join(ws, "sub"), "status")
			t.Logf("host git status in sub:\n%s", st)
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("ESCAPED: the person's git status in sub ran the core.fsmonitor program of a repository hidden past PATH_MAX: with turnstile-deep.turnstile-untrusted.0..99 taken by the command, the check set the deep directory aside in place, and the next command moved the repository up")
			}
		})
	}
}

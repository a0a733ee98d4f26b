package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack143_KilledCLISkipsCheck (review 143, low: needs the
// `turnstile sandbox` process killed outright while the command runs: a
// runtime's timeout that escalates to SIGKILL, a person's second Ctrl-C
// once the first one's cleanup is under way). The check for planted
// repositories runs in the `turnstile sandbox` process after the command
// has ended; killed outright, the process runs none, and nothing records
// that a command ran unchecked. The next `turnstile sandbox` command over
// the root is a process of its own whose check knows no earlier walk and
// goes by the times alone: a repository the killed command made in an
// earlier second is not judged either. The person's git status in it runs
// the agent's core.fsmonitor program.
//
// Control ("control-sigint"): the same command interrupted once (SIGINT):
// the process kills the command and runs the check, which sets the
// repository aside; the person's git status runs nothing.
func TestAttack143_KilledCLISkipsCheck(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the sandbox's idmapped root)")
	}
	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{{"control-sigint", syscall.SIGINT}, {"sigkill", syscall.SIGKILL}} {
		t.Run(c.name, func(t *testing.T) {
			base := workspace(t)
			ws, marker := filepath.Join(base, "ws"), filepath.Join(base, "pwned")
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
			ready := filepath.Join(ws, "ready")
			if err := syscall.Mkfifo(ready, 0o666); err != nil {
				t.Fatal(err)
			}
			sandbox := func(script string) *exec.Cmd {
				cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", ws, "--", "/bin/sh", "-c", script)
				cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
				cmd.Dir = ws
				return cmd
			}
			// The command: the repository, then (in a later second) its
			// word to the test, then it waits.
			var o1, e1 bytes.Buffer
			first := sandbox("export HOME=$TMPDIR; git init -q evil && printf '[core]\\n\\tfsmonitor = touch " + marker + "\\n' >> evil/.git/config && " +
				`t=$(date +%s); while [ "$(date +%s)" = "$t" ]; do :; done; echo ready > ready; exec sleep 1000`)
			first.Stdout, first.Stderr = &o1, &e1
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.ReadFile(ready); err != nil { // the repository is made
				t.Fatal(err)
			}
			if err := first.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err := first.Wait()
			t.Logf("first: %v\nstdout: %s\nstderr: %s", err, o1.String(), e1.String())
			// The next command over the root.
			out, err := sandbox("echo next").CombinedOutput()
			t.Logf("next: %v %s", err, out)
			st := git(filepath.Join(ws, "evil"), "status")
			t.Logf("host git status in evil:\n%s", st)
			_, statErr := os.Stat(marker)
			pwned := statErr == nil
			if c.sig == syscall.SIGINT {
				if pwned || !strings.Contains(e1.String(), "set aside") {
					t.Errorf("control: the interrupted command's check did not set the repository aside (pwned: %v)", pwned)
				}
				return
			}
			if pwned {
				t.Errorf("ESCAPED: the person's git status ran the core.fsmonitor program of a repository made by a command whose `turnstile sandbox` was killed; neither it nor the next command's check judged it")
			}
		})
	}
}

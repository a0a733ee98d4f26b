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

// TestAttack146_KilledCLIToolSetting (review 146, medium: needs the
// `turnstile sandbox` process killed outright while the command runs, as
// review 143's did). Review 143's fix leaves a pending marker beside the
// root's lock file; the next command over the root finds it (Since) and
// its check runs from the killed command's start with catchUp set. But
// catchUp only reaches the repository judgement (plantjudge.go gitDir):
// the setting aside of a shell start-up file or tool setting of the
// protected list that a command *created* at a writable root
// (plantcheck.go setAsideCreated) goes by the paths that were missing when
// *this* command started (plantCheck.missing, recorded by prepareSpec).
// The killed command's `.cargo/config.toml` and `.envrc` existed when the
// next command started, so they are held read-only for it, not missing,
// and its check leaves them: the person's next `cargo build` in the
// workspace runs the agent's rustc-wrapper on the host (and direnv the
// agent's .envrc once allowed).
//
// Controls: the same command interrupted once (SIGINT), whose own check
// runs, sets both files aside ("control-sigint"); and in the SIGKILL case
// the next command's check does catch up on the repository the killed
// command made (its HEAD set aside), so the marker was found and the
// catch-up ran: only the created tool settings escape it.
func TestAttack146_KilledCLIToolSetting(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the sandbox's idmapped root)")
	}
	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{{"control-sigint", syscall.SIGINT}, {"sigkill", syscall.SIGKILL}} {
		t.Run(c.name, func(t *testing.T) {
			base := workspace(t)
			ws := filepath.Join(base, "ws")
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
			cargoCfg := filepath.Join(ws, ".cargo", "config.toml")
			envrc := filepath.Join(ws, ".envrc")
			var o1, e1 bytes.Buffer
			first := sandbox("export HOME=$TMPDIR; mkdir -p .cargo && " +
				`printf '[build]\nrustc-wrapper = "` + ws + `/w.sh"\n' > .cargo/config.toml && ` +
				`printf 'touch /tmp/pwned-envrc\n' > .envrc && ` +
				`git init -q evil && printf '[core]\n\tfsmonitor = true\n' >> evil/.git/config && ` +
				`t=$(date +%s); while [ "$(date +%s)" = "$t" ]; do :; done; echo ready > ready; exec sleep 1000`)
			first.Stdout, first.Stderr = &o1, &e1
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.ReadFile(ready); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(cargoCfg); err != nil {
				t.Fatalf("setup: the command did not make .cargo/config.toml: %v", err)
			}
			if err := first.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err := first.Wait()
			t.Logf("first: %v\nstdout: %s\nstderr: %s", err, o1.String(), e1.String())
			out, err := sandbox("echo next").CombinedOutput()
			t.Logf("next: %v %s", err, out)
			_, repoErr := os.Stat(filepath.Join(ws, "evil", ".git", "HEAD"))
			repoLeft := repoErr == nil
			_, cargoErr := os.Stat(cargoCfg)
			_, envrcErr := os.Stat(envrc)
			cargoLeft, envrcLeft := cargoErr == nil, envrcErr == nil
			if c.sig == syscall.SIGINT {
				if cargoLeft || envrcLeft || repoLeft || !strings.Contains(e1.String(), "set aside") {
					t.Errorf("control: the interrupted command's own check did not set its plants aside (cargo config left: %v, .envrc left: %v, repository left: %v)", cargoLeft, envrcLeft, repoLeft)
				}
				return
			}
			if repoLeft {
				t.Fatalf("control: the next command's check did not catch up on the killed command's repository (the pending marker was not used)")
			}
			if cargoLeft || envrcLeft {
				data, _ := os.ReadFile(cargoCfg)
				t.Errorf("ESCAPED: the killed command's .cargo/config.toml (left: %v) and .envrc (left: %v) stand at the workspace's root after the next command's catch-up check, which set aside its repository; a host `cargo build` there runs:\n%s", cargoLeft, envrcLeft, data)
			}
		})
	}
}

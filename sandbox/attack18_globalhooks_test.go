package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack18GlobalRelativeHooksPath (eighteenth attack review): git
// reads the person's global config as well as the repository's, and a
// hooks path given there relative (git config --global core.hooksPath
// .githooks, so that each repository with a .githooks directory runs its
// hooks) is taken from each work tree. configRefs read the repository's
// config only, so the work tree's .githooks, which the config of no
// repository names, stayed the command's: it wrote .githooks/pre-commit,
// or made it, a write decision on it was allowed, and the person's next
// commit ran it. The same for a relative core.fsmonitor program. Controls:
// the person's hook runs before, and a source file is written by the
// command and allowed to a write decision.
func TestAttack18GlobalRelativeHooksPath(t *testing.T) {
	f := requireKernel(t, true)
	for _, existing := range []bool{true, false} {
		home := tempWorkspace(t)
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", "")
		ws := tempWorkspace(t)
		files := map[string]string{"src/main.go": "x\n"}
		if existing {
			files[".githooks/pre-commit"] = "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-hook-ran\"\n"
		}
		mkfiles(t, ws, files)
		if existing {
			mustDo(t, os.Chmod(ws+"/.githooks/pre-commit", 0o755))
		}
		mustDo(t, os.WriteFile(home+"/.gitconfig", []byte("[core]\n\thooksPath = .githooks\n[user]\n\tname = p\n\temail = p@example.com\n"), 0o644))
		git := func(args ...string) (string, error) {
			cmd := exec.Command("git", args...)
			cmd.Dir = ws
			cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		if out, err := git("init", "-q"); err != nil {
			t.Fatal(out, err)
		}
		if existing {
			if out, err := git("commit", "-q", "--allow-empty", "-m", "first"); err != nil || !exists(ws+"/person-hook-ran") {
				t.Fatalf("control: the person's hook did not run: %v %s", err, out)
			}
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		forgetWalks()
		if _, err := (DecisionChecker{}).ResolveFile(s, "src/main.go", domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on src/main.go was refused: %v", err)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, ".githooks/pre-commit", domain.AccessWrite, false); err == nil {
			t.Errorf("existing=%v: a write decision on .githooks/pre-commit, which the person's global hooks path names, was allowed", existing)
		}
		r := sh(t, s, "echo y >> src/main.go && mkdir -p .githooks && printf '#!/bin/sh\\ntouch "+ws+"/pwned\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit")
		if out, err := git("commit", "-q", "--allow-empty", "-m", "x"); exists(ws + "/pwned") {
			t.Errorf("existing=%v: the person's next commit ran the command's .githooks/pre-commit (command %d %s, set aside %v): %v %s", existing, r.ExitCode, strings.TrimSpace(string(r.Stderr)), r.Quarantined, err, out)
		}
		_ = filepath.Join
	}
}

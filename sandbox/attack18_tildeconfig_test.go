package sandbox

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack18TildeConfigPathInHelper (eighteenth attack review): a path a
// repository's config names from the home directory (include.path =
// ~/proj/shared.gitconfig, core.hooksPath = ~/proj/.githooks) is expanded
// with this process's home, but the helper, which builds the mounts, runs
// with an empty environment and no home: it skipped such a path, so what
// the server's view keeps read-only (a write decision on it is refused)
// the command wrote, and the person's next git status ran the
// core.fsmonitor it put in the included file. Controls: git reads the
// include before, and a write decision on it is refused.
func TestAttack18TildeConfigPathInHelper(t *testing.T) {
	f := requireKernel(t, true)
	home := tempWorkspace(t)
	t.Setenv("HOME", home)
	ws := filepath.Join(home, "proj")
	mkfiles(t, ws, map[string]string{"shared.gitconfig": "[alias]\n\tsharedok = status\n", "src/main.go": "x\n"})
	attack6GitRepo(t, ws, "[include]\n\tpath = ~/proj/shared.gitconfig\n")
	if out, err := hostGitRunHome(t, ws, home, "config", "alias.sharedok"); err != nil || strings.TrimSpace(out) != "status" {
		t.Fatalf("control: git does not read the include: %v %q", err, out)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()
	if _, err := (DecisionChecker{}).ResolveFile(s, "shared.gitconfig", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write decision on the included shared.gitconfig was allowed")
	}
	marker := filepath.Join(t.TempDir(), "ran")
	r := sh(t, s, "echo y >> src/main.go && printf '[core]\\n\\tfsmonitor = \"touch "+marker+" #\"\\n' >> shared.gitconfig")
	hostGitRunHome(t, ws, home, "status")
	if exists(marker) || strings.Contains(readFile(t, ws+"/shared.gitconfig"), "fsmonitor") {
		t.Errorf("the command wrote the included ~/proj/shared.gitconfig (command %d %s; ran: %v)", r.ExitCode, strings.TrimSpace(string(r.Stderr)), exists(marker))
	}
}

// hostGitRunHome runs the host's git in dir with HOME=home.
func hostGitRunHome(t *testing.T, dir, home string, args ...string) (string, error) {
	t.Helper()
	return hostGitRunEnv(dir, []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}, args...)
}

func hostGitRunEnv(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

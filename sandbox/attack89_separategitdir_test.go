package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack89_SeparateGitDirGlobalHooks (eighty-ninth review): the
// person's global config names a relative hooks path (core.hooksPath =
// .githooks, the eighteenth review's case), which git takes from each work
// tree. A repository the command makes is set aside when it changed what
// that path holds in the repository's work tree (configRefsChange,
// globalRef). But configRefsChange takes the work tree to be the git dir's
// parent (it resolves a relative path against the config's dir, the git dir
// and the git dir's parent only): for a repository whose git dir lies apart
// from its work tree (git init --separate-git-dir, a ".git" file naming it),
// the work tree's .githooks is never looked at, and the ".git" file is
// judged only when it names a held git dir (gitfile). The command runs
// `git init --separate-git-dir=gd evil` and writes evil/.githooks/pre-commit;
// nothing is set aside, and the person's next commit in evil runs it.
//
// Control: the same with an ordinary repository (git init evil2: its
// .githooks is looked at) is set aside, and a repository made with a
// separate git dir and no .githooks stays usable.
func TestAttack89_SeparateGitDirGlobalHooks(t *testing.T) {
	f := requireKernel(t, true)
	home := tempWorkspace(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	mustDo(t, os.WriteFile(home+"/.gitconfig", []byte("[core]\n\thooksPath = .githooks\n[user]\n\tname = p\n\temail = p@example.com\n"), 0o644))
	git := func(dir string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"src/main.go": "x\n"})
	if out, err := git(ws, "init", "-q"); err != nil {
		t.Fatal(out, err)
	}
	if out, err := git(ws, "commit", "-q", "--allow-empty", "-m", "first"); err != nil {
		t.Fatal(out, err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()
	hook := func(dir, mark string) string {
		return "mkdir -p " + dir + "/.githooks && printf '#!/bin/sh\\ntouch " + ws + "/" + mark + "\\n' > " + dir + "/.githooks/pre-commit && chmod +x " + dir + "/.githooks/pre-commit"
	}

	// Control 1: an ordinary repository with the hook is set aside.
	r := sh(t, s, "git init -q evil2 && "+hook("evil2", "pwned2"))
	if r.ExitCode != 0 {
		t.Fatalf("control: the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	git(ws+"/evil2", "commit", "-q", "--allow-empty", "-m", "x")
	if exists(ws + "/pwned2") {
		t.Fatalf("control: an ordinary repository's .githooks ran (set aside %v): the eighteenth review's fix does not hold here", r.Quarantined)
	}
	// Control 2: a separate git dir without hooks stays usable.
	r = sh(t, s, "git init -q --separate-git-dir=\"$PWD/gd-honest\" honest")
	if out, err := git(ws+"/honest", "commit", "-q", "--allow-empty", "-m", "honest"); err != nil {
		t.Fatalf("control: the repository made with git init --separate-git-dir is not usable (set aside %v): %v %s", r.Quarantined, err, out)
	}

	for _, c := range []struct{ how, script string }{
		{"git init --separate-git-dir", "git init -q --separate-git-dir=\"$PWD/gd\" evil"},
		// The same through the person's own repository: a linked work
		// tree (its admin dir .git/worktrees/evil is not held: new).
		{"git worktree add", "git worktree add -q -b evil evil"},
	} {
		dir := "evil"
		mustDo(t, os.RemoveAll(ws+"/"+dir), os.RemoveAll(ws+"/pwned"))
		r = sh(t, s, c.script+" && "+hook(dir, "pwned"))
		if r.ExitCode != 0 {
			t.Fatalf("%s: the command failed: %d %s", c.how, r.ExitCode, r.Stderr)
		}
		out, err := git(ws+"/"+dir, "commit", "-q", "--allow-empty", "-m", "in evil")
		if exists(ws + "/pwned") {
			t.Errorf("%s: the person's commit in evil ran the command's evil/.githooks/pre-commit, which their global core.hooksPath names: the repository's git dir lies apart from its work tree and nothing was set aside (set aside: %v): %v %s",
				c.how, r.Quarantined, err, strings.TrimSpace(out))
		}
	}
}

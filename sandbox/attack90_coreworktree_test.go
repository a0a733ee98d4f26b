package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack90_CoreWorktreeGlobalHooks (ninetieth review, a variant of the
// eighteenth and eighty-ninth reviews' the fixes miss): the person's
// global config names a relative hooks path (core.hooksPath = .githooks),
// which git takes from the work tree. A repository the command makes is
// set aside when it changed what that path holds in the repository's work
// tree: configRefsChange looks relative to the config's dir, the git dir
// and the git dir's parent, and (the eighty-ninth review) the directory a
// .git file makes a work tree. But a repository's config may name its work
// tree itself: core.worktree, which trust accepts when it leads, without a
// symlink, into the root. The command runs
//
//	git init -q evil && git -C evil config core.worktree "$PWD/wt"
//	mkdir -p wt/.githooks && <a pre-commit> > wt/.githooks/pre-commit
//
// (or the same with --separate-git-dir): nothing is set aside, and the
// person's next `git commit` in evil runs in the work tree wt, and runs
// wt/.githooks/pre-commit.
//
// Fix: take the work tree a config's core.worktree names (trust reads it
// already) as one more base of configRefsChange for that git dir (and for
// a .git file naming it, in workTreeRefsChanged).
//
// Control: the same hooks in evil/.githooks (no core.worktree) are set
// aside, and a repository with core.worktree and no hooks stays usable.
func TestAttack90_CoreWorktreeGlobalHooks(t *testing.T) {
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
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()
	hook := func(dir, mark string) string {
		return "mkdir -p " + dir + "/.githooks && printf '#!/bin/sh\\ntouch " + ws + "/" + mark + "\\n' > " + dir + "/.githooks/pre-commit && chmod +x " + dir + "/.githooks/pre-commit"
	}

	// Control 1: the hooks in the git dir's parent are set aside.
	r := sh(t, s, "git init -q evil1 && "+hook("evil1", "pwned1"))
	if r.ExitCode != 0 {
		t.Fatalf("control: the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	git(ws+"/evil1", "commit", "-q", "--allow-empty", "-m", "x")
	if exists(ws + "/pwned1") {
		t.Fatalf("control: an ordinary repository's .githooks ran (set aside %v)", r.Quarantined)
	}
	// Control 2: core.worktree without hooks stays usable.
	r = sh(t, s, "git init -q honest && mkdir honestwt && git -C honest config core.worktree \"$PWD/honestwt\"")
	if out, err := git(ws+"/honest", "commit", "-q", "--allow-empty", "-m", "honest"); err != nil {
		t.Fatalf("control: a repository with core.worktree is not usable (set aside %v): %v %s", r.Quarantined, err, out)
	}

	for _, c := range []struct{ how, script string }{
		{"git init", "git init -q evil"},
		{"git init --separate-git-dir", "git init -q --separate-git-dir=\"$PWD/gd\" evil"},
	} {
		mustDo(t, os.RemoveAll(ws+"/evil"), os.RemoveAll(ws+"/wt"), os.RemoveAll(ws+"/gd"), os.RemoveAll(ws+"/pwned"))
		r = sh(t, s, c.script+" && mkdir wt && git -C evil config core.worktree \"$PWD/wt\" && "+hook("wt", "pwned"))
		if r.ExitCode != 0 {
			t.Fatalf("%s: the command failed: %d %s", c.how, r.ExitCode, r.Stderr)
		}
		out, err := git(ws+"/evil", "commit", "-q", "--allow-empty", "-m", "in evil")
		if exists(ws + "/pwned") {
			t.Errorf("%s with core.worktree = wt: the person's commit in evil ran the command's wt/.githooks/pre-commit, which their global core.hooksPath names; nothing was set aside (%v): %v %s",
				c.how, r.Quarantined, err, strings.TrimSpace(out))
		}
	}

	// The same in two commands: the repository with core.worktree (honest
	// in itself, control 2), then the hooks in its work tree. The next
	// command's discovery does not hold wt/.githooks either.
	mustDo(t, os.RemoveAll(ws+"/evil"), os.RemoveAll(ws+"/wt"), os.RemoveAll(ws+"/pwned"))
	r1 := sh(t, s, "git init -q evil && mkdir wt && git -C evil config core.worktree \"$PWD/wt\"")
	r2 := sh(t, s, hook("wt", "pwned"))
	if r1.ExitCode != 0 || r2.ExitCode != 0 {
		t.Fatalf("two commands: %d %s / %d %s", r1.ExitCode, r1.Stderr, r2.ExitCode, r2.Stderr)
	}
	out, err := git(ws+"/evil", "commit", "-q", "--allow-empty", "-m", "in evil")
	if exists(ws + "/pwned") {
		t.Errorf("core.worktree = wt made by one command, wt/.githooks by the next: the person's commit in evil ran it; nothing held or set aside (%v, %v): %v %s",
			r1.Quarantined, r2.Quarantined, err, strings.TrimSpace(out))
	}
}

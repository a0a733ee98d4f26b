package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack92_CoreWorktreeDotDotThroughSymlink (ninety-second review,
// medium-high: the trust check on a repository's work tree, and the
// ninetieth review's core.worktree hooks check, read the path lexically;
// git walks it physically).
//
// trust (plantjudge.go) takes a config's core.worktree, joins it to the
// git dir, collapses it lexically (domain.CleanPath) and then asks that
// the collapsed path lies in the root and is canonical. git does not
// collapse: it chdirs to the git dir, then to the value, and takes
// getcwd (setup.c), so "lnk/.." is the parent of lnk's TARGET. The
// command runs
//
//	git init -q evil && (commit a .bashrc in it)
//	ln -s <the person's home>/.config evil/lnk
//	git -C evil config core.worktree ../lnk/..
//
// CleanPath("evil/.git/../lnk/..") is evil, in the root and canonical:
// trusted, nothing set aside. git's work tree for evil is the person's
// home: their `git -C evil reset --hard` (or checkout/restore/stash)
// writes the command's .bashrc into their home. The same hole lets
// wt/.githooks hide from coreWorktrees (a relative hooks path) and
// discovery's coreWorktreesOf, which collapse the same way.
//
// Fix: resolve core.worktree as git does (the git dir's real path, then
// each component of the value in turn, following symlinks, ".." after
// the resolved one), or refuse any core.worktree holding a ".." after a
// component that is a symlink (simplest: refuse one whose lexical and
// physical resolutions differ, resolving it with the kernel: open the git
// dir and openat2 the value with RESOLVE_NO_SYMLINKS / compare).
//
// Control: core.worktree naming the home directly is set aside.
func TestAttack92_CoreWorktreeDotDotThroughSymlink(t *testing.T) {
	f := requireKernel(t, true)
	home := tempWorkspace(t)
	mustDo(t, os.MkdirAll(home+"/.config", 0o755))
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
	repo := func(name string) string {
		return "git init -q " + name + " && cd " + name + " && printf 'echo pwned\\n' > .bashrc && git add .bashrc && " +
			"git -c user.name=a -c user.email=a@b.c commit -qm x && rm .bashrc && "
	}

	// Control: core.worktree naming the home itself is not trusted.
	r := sh(t, s, repo("ctl")+"git config core.worktree '"+home+"'")
	if r.ExitCode != 0 {
		t.Fatalf("control: the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	t.Logf("control: set aside %v", r.Quarantined)
	git(ws+"/ctl", "reset", "-q", "--hard")
	if exists(home + "/.bashrc") {
		t.Fatalf("control: core.worktree = the home was not set aside (%v): the person's reset wrote their .bashrc", r.Quarantined)
	}

	r = sh(t, s, repo("evil")+"ln -s '"+home+"/.config' lnk && git config core.worktree ../lnk/..")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	top, _ := git(ws+"/evil", "rev-parse", "--show-toplevel")
	t.Logf("git's work tree for evil: %s; set aside: %v", strings.TrimSpace(top), r.Quarantined)
	out, err := git(ws+"/evil", "reset", "-q", "--hard")
	if b, rerr := os.ReadFile(home + "/.bashrc"); rerr == nil {
		t.Errorf("core.worktree = ../lnk/.. (lnk -> the home's .config): trusted as evil itself, git's work tree is the home; the person's `git reset --hard` in evil wrote %q into %s/.bashrc (set aside %v): %v %s",
			b, home, r.Quarantined, err, strings.TrimSpace(out))
	}
}

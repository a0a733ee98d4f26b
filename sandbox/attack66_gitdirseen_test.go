package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack66WorktreePointerLinkSeenFirst — severity: medium (a protected
// git dir's way is replaced while the command runs; the person's work tree
// runs the command's config, as in the sixty-second review's attack).
//
// Attack: the sixty-second review's layout (a work tree's ".git" pointer
// naming its git dir through a symlink: wt/.git "gitdir: ../gl/worktrees/wt",
// gl -> .git), where the git dir is a linked worktree's dir of the root's
// own repository (git worktree add wt; the person keeps the pointer
// relative through a link, so that the checkout can be moved). The fix
// (63ee6c9) passes the pointer's path as written to gitDir
// (sandbox/protect.go) as the pin's From, so that protectedLinks
// (sandbox/rules.go) pins gl. But gitDir returns at once for a git dir it
// has seen (d.seen["dir:"+g]), and discovery reaches .git/worktrees/wt
// first from the root's .git (moduleDirs(worktrees) -> gitDir(p, "")),
// with no From: the pointer's visit, which carries the From, is dropped,
// and gl is not pinned. The command replaces gl with a link to its own
// copy of .git and writes core.fsmonitor into it through `git -C wt
// config`; a host git in wt meanwhile (an editor's integration) runs it.
//
// Fix: on a git dir already seen, still record the new From (append a pin
// with the From, or a From list per git dir) instead of returning; or
// collect every pointer's way (links and ".." dirs) independently of the
// git dir's dedup.
//
// Control: the same pointer through gl to a separate git dir that
// nothing else reaches (the sixty-second review's test) is pinned: the
// command cannot replace gl.
func TestAttack66WorktreePointerLinkSeenFirst(t *testing.T) {
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	attack := `cp -r .git mine && rm gl && ln -s mine gl && echo RELINKED; git -C wt config core.fsmonitor 'touch planted; false' && echo CONFIGURED`

	// Control: a separate git dir reached only through the pointer.
	ctl := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ctl+"/wt", 0o755))
	git("init", "-q", "--separate-git-dir", ctl+"/.git", ctl+"/wt")
	mustDo(t, os.Remove(ctl+"/wt/.git"))
	git("init", "-q", "--separate-git-dir", ctl+"/store", ctl+"/wt")
	mustDo(t, os.Symlink("store", ctl+"/gl"), os.WriteFile(ctl+"/wt/.git", []byte("gitdir: ../gl\n"), 0o644))
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ctl, f.Kernel), strings.ReplaceAll(attack, "cp -r .git mine", "cp -r store mine"))
	if got, _ := os.Readlink(ctl + "/gl"); got != "store" || strings.Contains(string(r.Stdout), "RELINKED") || strings.Contains(string(r.Stdout), "CONFIGURED") {
		t.Fatalf("control: the link on the pointer's way to a separate git dir is pinned: gl -> %q, %s %s", got, r.Stdout, r.Stderr)
	}

	ws := tempWorkspace(t)
	git("init", "-q", ws)
	git("-C", ws, "commit", "-q", "--allow-empty", "-m", "init")
	git("-C", ws, "worktree", "add", "-q", ws+"/wt")
	mustDo(t, os.Symlink(".git", ws+"/gl"), os.WriteFile(ws+"/wt/.git", []byte("gitdir: ../gl/worktrees/wt\n"), 0o644))
	git("-C", ws+"/wt", "status", "--short")
	r = sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), attack)
	if got, _ := os.Readlink(ws + "/gl"); got != ".git" || strings.Contains(string(r.Stdout), "RELINKED") || strings.Contains(string(r.Stdout), "CONFIGURED") {
		t.Errorf("the symlink on the way from wt/.git to the root repository's worktree git dir was replaced (gl -> %q) and the config git in wt reads written: %s %s", got, r.Stdout, r.Stderr)
	}
}

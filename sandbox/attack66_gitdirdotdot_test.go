package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack66GitPointerDotDotAfterLink — severity: low (needs a pointer
// whose text passes a link and then ".."; the git dir git really uses is
// then writable: hooks and core.fsmonitor a host git runs).
//
// Attack: a work tree's ".git" pointer names its git dir by a path that
// passes a symlink and then leaves it by ".." (wt/.git: "gitdir:
// lnk/../real", lnk -> ../store/sub: git reads the pointer's path with
// realpath, physically: lnk, then its target's parent, store/real).
// dotGit (sandbox/protect.go) resolves the pointer with
// canonicalPath(domain.CleanPath(target)): CleanPath drops "lnk/.."
// lexically, so discovery looks for wt/real, finds nothing, and protects
// no git dir (63ee6c9 records the path as written as the pin's From, but
// only once the lexical git dir exists). The git dir the person's git
// uses, store/real, is not found (it is not named .git), so its config,
// hooks and info stay writable: the command writes core.fsmonitor
// through `git -C wt config`, and a host git in wt while the command runs
// (an editor's integration) runs it; the check after the command then
// finds store/real as a planted repository and sets aside the person's
// config, hooks and HEAD (the person's repository is broken).
//
// Fix: resolve the pointer's path as the kernel and git do
// (canonicalPath of the raw target: walkLinks applies ".." after a link
// to the link's target), the same path protectedLinks walks for From.
//
// Control: the same work tree whose pointer names the git dir without a
// link (gitdir: ../store/real) keeps its config read-only.
func TestAttack66GitPointerDotDotAfterLink(t *testing.T) {
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	layout := func(pointer string) string {
		ws := tempWorkspace(t)
		mustDo(t, os.MkdirAll(ws+"/store/sub", 0o755), os.MkdirAll(ws+"/wt", 0o755))
		if out, err := exec.Command("git", "init", "-q", "--separate-git-dir", ws+"/store/real", ws+"/wt").CombinedOutput(); err != nil {
			t.Fatal(string(out))
		}
		mustDo(t, os.Symlink("../store/sub", ws+"/wt/lnk"), os.WriteFile(ws+"/wt/.git", []byte("gitdir: "+pointer+"\n"), 0o644))
		if out, err := exec.Command("git", "-C", ws+"/wt", "rev-parse", "--absolute-git-dir").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != ws+"/store/real" {
			t.Fatalf("git in wt uses %q (%v), want %s", out, err, ws+"/store/real")
		}
		return ws
	}
	attack := `git -C wt config core.fsmonitor 'touch planted; false' && echo CONFIGURED`

	ctl := layout("../store/real")
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ctl, f.Kernel), attack)
	if strings.Contains(string(r.Stdout), "CONFIGURED") || strings.Contains(readFile(t, ctl+"/store/real/config"), "fsmonitor") {
		t.Fatalf("control: the git dir a plain pointer names keeps its config read-only: %s %s", r.Stdout, r.Stderr)
	}

	ws := layout("lnk/../real")
	r = sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), attack)
	if strings.Contains(string(r.Stdout), "CONFIGURED") {
		t.Errorf("the git dir wt/.git names as lnk/../real (git opens store/real) was not protected: the command wrote core.fsmonitor into its config (a host git in wt meanwhile runs it); the check after set aside the person's config, hooks and HEAD: %+v", r.Quarantined)
	}
}

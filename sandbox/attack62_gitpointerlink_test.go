package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack62GitPointerLinkReplaced — severity: medium (a protected git
// dir's way is replaced; the person's work tree runs the command's config).
//
// Attack: a work tree in the workspace whose ".git" pointer file names its
// git dir through a symlink (wt/.git: "gitdir: ../gd/real", gd -> store;
// a separate git dir kept beside the checkout, with a link so that the
// store can be moved). Discovery (sandbox/protect.go, dotGit) resolves the
// pointer and pins the canonical git dir store/real (and its config,
// hooks, info read-only), but the pin rule it adds has no From, so
// protectedLinks (sandbox/rules.go), which pins every symlink the lookup
// of a carve-out's or pin's path passes, sees nothing to pin. The command
// cannot move store or store/real (EBUSY), yet it removes gd and points it
// at a copy of its own: git in wt now reads the command's config
// (core.fsmonitor set by `git -C wt config`, which the read-only config
// was meant to refuse), so a host git run there meanwhile (an editor's
// integration of the person's own work tree) runs the command's program;
// after the command the copy is quarantined but the person's work tree is
// left pointing at it ("not a git repository").
//
// Fix: record the pointer's target as written (the path git opens,
// relative to the pointer's directory) as the From of the git dir's pin,
// as protect.go does for core.hooksPath, so that protectedLinks pins every
// link (and directory left by "..") on its way; likewise for a ".git"
// symlink's chain and a commondir file's path.
//
// Control: the git dir and its parent are pinned (EBUSY), and another
// link to the same store, on the way to nothing protected, is removed.
func TestAttack62GitPointerLinkReplaced(t *testing.T) {
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/store", 0o755), os.MkdirAll(ws+"/wt", 0o755))
	if out, err := exec.Command("git", "init", "-q", "--separate-git-dir", ws+"/store/real", ws+"/wt").CombinedOutput(); err != nil {
		t.Fatal(string(out))
	}
	mustDo(t, os.Symlink("store", ws+"/gd"), os.Symlink("store", ws+"/other"),
		os.WriteFile(ws+"/wt/.git", []byte("gitdir: ../gd/real\n"), 0o644))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `mv store/real store/r2 && echo MOVED-GITDIR; mv store s2 && echo MOVED-STORE; rm other && echo OTHER-GONE; `+
		`cp -r store mine && rm gd && ln -s mine gd && echo RELINKED; git -C wt config core.fsmonitor 'touch planted; false' && echo CONFIGURED`)
	out := string(r.Stdout)
	if !strings.Contains(out, "OTHER-GONE") || strings.Contains(out, "MOVED-GITDIR") || strings.Contains(out, "MOVED-STORE") {
		t.Fatalf("control: the git dir and its parent pinned, another link removable: exit %d, %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if got, _ := os.Readlink(ws + "/gd"); got != "store" || strings.Contains(out, "RELINKED") || strings.Contains(out, "CONFIGURED") {
		t.Errorf("the symlink on the way from wt/.git to its protected git dir was replaced (gd -> %q), and wt's git config written: %s", got, out)
	}
}

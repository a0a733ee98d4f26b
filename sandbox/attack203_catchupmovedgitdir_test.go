package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack203_CatchUpBelowMovedOutGitDir (review 203): as
// TestAttack202_CatchUpBelowMovedOutHeld, whose plant the view held (its
// way mounted, so the next command's rename was EBUSY), with the git dir
// planted under another name: a command over ws/sub, killed outright,
// made a repository whose config runs core.fsmonitor and renamed its .git
// to ws/sub/evil/dotgit. The next command's discovery holds ".git" entries
// only, so nothing is mounted there; it renames dotgit to ws/proj/.git
// before its check. catchUpBelow walks ws/sub (nothing there now); the
// walk of ws goes from the next command's start, and a rename leaves the
// git dir's HEAD, objects, refs, config and hooks with the killed
// command's times: not read. The person's `git status` in ws/proj runs
// the killed command's fsmonitor.
//
// Control: the next command moves nothing (dotgit, a git dir in ws/sub,
// is judged from the killed command's start and set aside).
func TestAttack203_CatchUpBelowMovedOutGitDir(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, script, planted string }{
		{"control-unmoved", "echo next", "sub/evil/dotgit"},
		{"renamed-to-dotgit", "mkdir proj && mv sub/evil/dotgit proj/.git && echo next", "proj/.git"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n", "README": "r\n"})
			sub := ws + "/sub"
			marker := base + "/pwned"
			lock, err := lockRoots(context.Background(), []string{sub})
			if err != nil {
				t.Fatal(err)
			}
			lock.MarkStarted(coarseNow())
			if dir, err := rootLockDir(); err == nil {
				t.Cleanup(func() {
					os.Remove(pendingMarker(lockFileName(dir, sub)))
					for _, a := range lockAncestors(sub) {
						os.Remove(belowMarker(dir, a, sub))
					}
				})
			}
			cmd := exec.Command("/bin/sh", "-c", "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+marker+"\\n' >> evil/.git/config && mv evil/.git evil/dotgit")
			cmd.Dir = sub
			cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the killed command's plant: %v %s", err, out)
			}
			lock.Release() // killed: no check, no Checked
			time.Sleep(1100 * time.Millisecond)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			r := sh(t, s, "cd "+ws+" && "+c.script)
			if string(r.Stdout) != "next\n" {
				t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("next command over ws (%s): set aside %v; limits %q", c.script, quarantined(r), r.CheckLimits)
			if !exists(ws + "/" + c.planted + "/HEAD") {
				return // set aside
			}
			if c.name == "control-unmoved" {
				t.Fatalf("control: the killed command's git dir in ws/sub was not set aside")
			}
			wt := ws + "/proj"
			st := exec.Command("git", "status")
			st.Dir = wt
			st.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			out, _ := st.CombinedOutput()
			t.Logf("host git status in ws/proj:\n%s", out)
			t.Errorf("KEPT: the next command over ws renamed the killed command's git dir (ws/sub/evil/dotgit, not held) to ws/proj/.git before its check; it was not judged (person's git status ran its fsmonitor: %v)", exists(marker))
		})
	}
}

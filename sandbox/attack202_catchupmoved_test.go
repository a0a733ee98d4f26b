package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack202_CatchUpBelowMovedOutHeld (review 202; held, passes): a command over ws/sub is
// killed outright after planting a repository (core.fsmonitor) in
// ws/sub/evil. The next command over ws reads the marker and, since
// cf7a1b0d, checks ws from its own start and ws/sub alone from the killed
// command's start (catchUpBelow, by path). The next command itself moves
// the plant out of ws/sub before its check runs: the directory rename
// changes the moved directory's ctime only, the plant below keeps the
// killed command's times, so the check of ws (from its own start) passes
// it, and catchUpBelow finds nothing at ws/sub (ENOENT is silent, or the
// directory no longer holds it). Before cf7a1b0d the whole of ws was
// judged from the killed command's start and the plant was set aside
// wherever in ws it had been moved.
//
// Held: the next command cannot move it: the view bind-mounts every
// directory on the way to a repository it holds (ws/sub, ws/sub/evil), and
// rename(2) of a mount point is EBUSY; the plant stays in ws/sub and is set
// aside.
//
// Control: the same next command that moves nothing (the plant is set
// aside, as in TestCatchUpBelowKeepsOthersWork).
func TestAttack202_CatchUpBelowMovedOutHeld(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name, script, planted string // planted: where the plant is after the next command, below ws
	}{
		{"control-unmoved", "echo next", "sub/evil"},
		{"root-renamed", "mv sub sub2 && echo next", "sub2/evil"},
		{"plant-moved-up", "mv sub/evil evil && echo next", "evil"},
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
			cmd := exec.Command("/bin/sh", "-c", "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+marker+"\\n' >> evil/.git/config")
			cmd.Dir = sub
			cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the killed command's plant: %v %s", err, out)
			}
			lock.Release() // killed: no check, no Checked
			time.Sleep(1100 * time.Millisecond)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			r := sh(t, s, c.script)
			if string(r.Stdout) != "next\n" {
				// Held: the view mounts the way to the repository it holds
				// (ws/sub, ws/sub/evil), and rename(2) there is EBUSY.
				t.Logf("held: the next command could not move the plant: %q", r.Stderr)
				if exists(sub + "/evil/.git/HEAD") {
					t.Errorf("the killed command's repository, not moved, was not set aside: %v", quarantined(r))
				}
				return
			}
			t.Logf("next command over ws (%s): set aside %v\n%s", c.script, quarantined(r), r.Stderr)
			left := ws + "/" + c.planted
			if !exists(left + "/.git/HEAD") {
				return // set aside
			}
			st := exec.Command("git", "status")
			st.Dir = left
			st.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			out, _ := st.CombinedOutput()
			t.Logf("host git status in %s:\n%s", c.planted, out)
			if c.name == "control-unmoved" {
				t.Errorf("control: the killed command's repository in ws/sub was not set aside")
				return
			}
			t.Errorf("ESCAPED: the next command over ws moved the killed command's repository out of ws/sub (%s) before its check; ws was judged from the next command's start, ws/sub alone from the killed one's, and the repository was kept (person's git status ran its fsmonitor: %v)", c.planted, exists(marker))
		})
	}
}

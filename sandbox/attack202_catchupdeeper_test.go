package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack202_CatchUpBelowParentMoved (review 202): as
// TestAttack202_CatchUpBelowMovedOutHeld, the killed command's root two
// levels down (ws/sub/inner), and the next command over ws moving ws/sub,
// the directory above the root, and making an empty ws/sub/inner where
// catchUpBelow looks.
func TestAttack202_CatchUpBelowParentMoved(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, script, planted string }{
		{"control-unmoved", "echo next", "sub/inner/evil"},
		{"parent-moved", "mv sub sub.old && mkdir -p sub/inner && echo next", "sub.old/inner/evil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/inner/README": "r\n", "README": "r\n"})
			root := ws + "/sub/inner"
			marker := base + "/pwned"
			lock, err := lockRoots(context.Background(), []string{root})
			if err != nil {
				t.Fatal(err)
			}
			lock.MarkStarted(coarseNow())
			if dir, err := rootLockDir(); err == nil {
				t.Cleanup(func() {
					os.Remove(pendingMarker(lockFileName(dir, root)))
					for _, a := range lockAncestors(root) {
						os.Remove(belowMarker(dir, a, root))
					}
				})
			}
			cmd := exec.Command("/bin/sh", "-c", "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+marker+"\\n' >> evil/.git/config")
			cmd.Dir = root
			cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the killed command's plant: %v %s", err, out)
			}
			lock.Release() // killed: no check, no Checked
			time.Sleep(1100 * time.Millisecond)
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel), c.script)
			t.Logf("next command over ws (%s): %q set aside %v", c.script, r.Stderr, quarantined(r))
			left := ws + "/" + c.planted
			if !exists(left+"/.git/HEAD") && !exists(root+"/evil/.git/HEAD") {
				return // set aside
			}
			if string(r.Stdout) != "next\n" {
				t.Errorf("held (could not move) but the plant was kept: %q", r.Stderr)
				return
			}
			st := exec.Command("git", "status")
			st.Dir = left
			st.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			st.CombinedOutput()
			t.Errorf("ESCAPED: the killed command's repository (now %s) was kept; the person's git status there ran its fsmonitor: %v", c.planted, exists(marker))
		})
	}
}

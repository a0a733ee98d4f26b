package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack202_CatchUpBelowRootViaLink (review 202): catchUpBelow runs
// only for a marker root within one of the check's roots (by path), and
// Checked removes the marker whatever it did. The next command's root is
// named through a symlink (wslink -> ws): the lock takes it canonical
// (lockTargets), the marker of the killed command over ws/sub is read;
// is the check's root canonical too, or is the marker dropped unchecked?
func TestAttack202_CatchUpBelowRootViaLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	mkfiles(t, ws, map[string]string{"sub/README": "r\n", "README": "r\n"})
	if err := os.Symlink("ws", base+"/wslink"); err != nil {
		t.Fatal(err)
	}
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
		t.Fatalf("%v %s", err, out)
	}
	lock.Release()
	time.Sleep(1100 * time.Millisecond)
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, base+"/wslink", machine().Kernel), "echo next")
	t.Logf("next command over wslink: %q set aside %v", r.Stderr, quarantined(r))
	if exists(sub + "/evil/.git/HEAD") {
		t.Errorf("the killed command's repository in ws/sub was kept by the next command over wslink (-> ws)")
	}
}

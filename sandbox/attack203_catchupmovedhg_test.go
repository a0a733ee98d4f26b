package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack203_CatchUpBelowMovedOutHgrc (review 203): as
// TestAttack202_CatchUpBelowMovedOutHeld, with a plant the view does not
// hold: a command over ws/sub, killed outright, made ws/sub/proj/.hg/hgrc
// with a [hooks] section (the host's hg runs it). The next command over ws
// moves ws/sub/proj out of ws/sub (nothing there is a mount point: only
// git repositories have their way mounted) before its check. catchUpBelow
// walks ws/sub from the killed command's start and no longer finds it;
// the walk of ws goes from the next command's start, and otherVCS judges
// hgrc by its own change time (the killed command's): kept, wherever in ws
// it now is.
//
// Control: the next command moves nothing, and hgrc is set aside.
func TestAttack203_CatchUpBelowMovedOutHgrc(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, script, planted string }{
		{"control-unmoved", "echo next", "sub/proj"},
		{"moved-up", "mv sub/proj proj && echo next", "proj"},
		{"moved-sideways", "mkdir other && mv sub/proj other/proj && echo next", "other/proj"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n", "README": "r\n"})
			sub := ws + "/sub"
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
			cmd := exec.Command("/bin/sh", "-c", "mkdir -p proj/.hg && printf '[hooks]\\npre-status = touch "+base+"/pwned\\n' > proj/.hg/hgrc")
			cmd.Dir = sub
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
			left := ws + "/" + c.planted + "/.hg/hgrc"
			if !exists(left) {
				return // set aside
			}
			if c.name == "control-unmoved" {
				t.Fatalf("control: the killed command's hgrc in ws/sub was not set aside")
			}
			t.Errorf("KEPT: the next command over ws moved the killed command's .hg (hooks in its hgrc) out of ws/sub to ws/%s before its check; ws/sub was caught up from the killed command's start, the rest of ws from the next command's, and hgrc was kept", c.planted)
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack202_CatchUpBelowFollowsLink (review 202): catchUpBelow walks a
// killed command's root by the path its marker names (plantWalk.root opens
// it O_NOFOLLOW on the last component only), checking it from the killed
// command's start, with held repositories judged as any other. The marker
// outlives the kill; the next command over ws (the agent's) replaces a
// directory on the marker root's way (ws/sub, above the root ws/sub/inner)
// with a symlink to a directory outside every root the agent was given:
// its own check then walks that directory as a catch-up and sets aside
// what the person made there since the killed command started (a
// repository of theirs, far outside the turn's roots). The agent picks
// the directory; the check runs as the server (root).
//
// Control: the same sequence without the link: the person's repository
// outside ws is left alone.
func TestAttack202_CatchUpBelowFollowsLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name string
		link bool
	}{{"control-no-link", false}, {"link-on-way", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			elsewhere := base + "/elsewhere" // the person's, outside the turn's roots
			mkfiles(t, ws, map[string]string{"sub/inner/README": "r\n", "README": "r\n"})
			mkfiles(t, elsewhere, map[string]string{"inner/README": "r\n"})
			root := ws + "/sub/inner"
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
			lock.Release() // killed: no check, no Checked
			// The person's own repository, outside the turn's roots, made
			// after the killed command started.
			g := exec.Command("/bin/sh", "-c", "git init -q mine && printf '[core]\\n\\tfsmonitor = true\\n' >> mine/.git/config")
			g.Dir = elsewhere + "/inner"
			g.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			if out, err := g.CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			time.Sleep(1100 * time.Millisecond)
			script := "echo next"
			if c.link {
				script = "mv sub sub.old && ln -s " + elsewhere + " sub && echo next"
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			r := sh(t, s, script)
			if string(r.Stdout) != "next\n" {
				t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("next command over ws (%s): set aside %v", script, quarantined(r))
			if !exists(elsewhere + "/inner/mine/.git/HEAD") {
				t.Errorf("the next command over ws set aside the person's repository in %s, outside every root of the turn (its catch-up of the killed command's root ws/sub/inner followed the symlink the command put at ws/sub): %v", elsewhere, quarantined(r))
			}
		})
	}
}

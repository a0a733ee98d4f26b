package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack203_CatchUpBelowRootGoneSetsAsidePersonsWork (review 203,
// against 6e33e85a): a command over ws/sub is killed outright (its marker
// stays in ws's below-directory). The next command over ws only has to
// move ws/sub away (`mv sub sub2`; nothing in sub is held, so no mount
// point stops the rename): catchUpBelow's openRootDir(ws/sub) then fails
// (ENOENT) and it walks the whole of ws from the killed command's start,
// as before cf7a1b0d. A repository the person made in ws/other after that
// start (its config and fsmonitor the person's; the view held its git dir
// read-only, so the agent could not touch it) is judged as the killed
// command's plant and set aside: the agent chose to have the check damage
// a file it could not write.
//
// Control: the same next command that moves nothing keeps the person's
// repository (TestCatchUpBelowKeepsOthersWork).
func TestAttack203_CatchUpBelowRootGoneSetsAsidePersonsWork(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, script string }{
		{"control-unmoved", "echo next"},
		{"root-moved-away", "mv sub sub2 && echo next"},
		{"root-removed", "rm -rf sub && echo next"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n", "other/README": "r\n"})
			sub := ws + "/sub"
			gitIn := func(dir, script string) {
				t.Helper()
				cmd := exec.Command("/bin/sh", "-c", script)
				cmd.Dir = dir
				cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v %s", script, err, out)
				}
			}
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
			lock.Release() // killed: no check, no Checked
			time.Sleep(1100 * time.Millisecond)
			// The person's own repository, made after the kill.
			gitIn(ws+"/other", "git init -q mine && printf '[core]\\n\\tfsmonitor = true\\n' >> mine/.git/config")
			time.Sleep(1100 * time.Millisecond)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			r := sh(t, s, "cd "+ws+" && "+c.script)
			if string(r.Stdout) != "next\n" {
				t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("next command (%s): set aside %+v; limits %q", c.script, quarantined(r), r.CheckLimits)
			if !exists(ws + "/other/mine/.git/HEAD") {
				if c.name == "control-unmoved" {
					t.Fatalf("control: the person's repository was set aside by a next command that moved nothing: %v", quarantined(r))
				}
				t.Errorf("FALSE SET-ASIDE: the next command over ws moved away the killed command's root ws/sub (%s); catchUpBelow then walked all of ws from the killed command's start and set aside the person's repository ws/other/mine, made after it: %v", c.script, quarantined(r))
			}
		})
	}
}

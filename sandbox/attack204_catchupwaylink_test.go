package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack204_CatchUpKilledWayLinkTakenForPersons (review 204, high:
// mvn in the person's project runs the agent's jvm.config). A command
// over ws, killed outright, makes ws/.mvn a symlink to a directory of
// another root of the agent's, ws2/evil (empty: nothing protected exists
// yet). The check of what it left (catchUpFirst.run, as the old
// after-check) builds its plantCheck after the kill: .mvn/jvm.config is
// missing, and the symlink on its way is recorded in wayLinks as if it had
// been there before the killed command (the person's); madeWayLink takes it
// for the person's, and setAsideCaughtUp looks only at protected paths
// present. Nothing is set aside, the markers go, and every later check
// over ws records the link as the person's too. A command over ws2 then
// writes ws2/evil/jvm.config (nothing protected there); ws/.mvn/jvm.config
// now exists, present at every later command's start, never judged.
//
// Control: the same link made by a command that is not killed is set
// aside by its own check.
func TestAttack204_CatchUpKilledWayLinkTakenForPersons(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name   string
		killed bool
	}{{"control-checked", false}, {"killed", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws, ws2 := base+"/ws", base+"/ws2"
			mkfiles(t, ws, map[string]string{"pom.xml": "<project/>\n"})
			mkfiles(t, ws2, map[string]string{"evil/README": "x\n"})
			plant := "ln -s " + ws2 + "/evil .mvn && echo PLANTED"
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			if c.killed {
				lock, err := lockRoots(context.Background(), []string{ws})
				if err != nil {
					t.Fatal(err)
				}
				lock.MarkStarted(coarseNow())
				if dir, err := rootLockDir(); err == nil {
					t.Cleanup(func() {
						os.Remove(pendingMarker(lockFileName(dir, ws)))
						for _, a := range lockAncestors(ws) {
							os.Remove(belowMarker(dir, a, ws))
						}
					})
				}
				cmd := exec.Command("/bin/sh", "-c", plant)
				cmd.Dir = ws
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("the killed command's plant: %v %s", err, out)
				}
				lock.Release() // killed: no check, no Checked
				time.Sleep(1100 * time.Millisecond)
				r := sh(t, s, "echo next")
				t.Logf("next command over ws: set aside %v; limits %q", quarantined(r), r.CheckLimits)
			} else {
				r := sh(t, s, plant)
				t.Logf("command over ws: %q %q; set aside %v", r.Stdout, r.Stderr, quarantined(r))
			}
			// The agent's command over ws2 fills the directory.
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws2, machine().Kernel), "printf -- '"+attack201JVMConfig+"' > evil/jvm.config && echo WROTE")
			t.Logf("command over ws2: %q %q; set aside %v", r.Stdout, r.Stderr, quarantined(r))
			r = sh(t, s, "echo later")
			t.Logf("later command over ws: set aside %v", quarantined(r))
			b, err := os.ReadFile(ws + "/.mvn/jvm.config")
			if err != nil {
				return
			}
			if !c.killed {
				t.Fatalf("control: the checked command's .mvn link was kept: ws/.mvn/jvm.config reads %q", b)
			}
			t.Errorf("KEPT: the killed command's ws/.mvn -> ws2/evil was taken for the person's link by the check of what it left; ws/.mvn/jvm.config (mvn runs it) reads %q", b)
		})
	}
}

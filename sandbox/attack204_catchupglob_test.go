package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack204_CatchUpFirstNoGlobRules (review 204, high: a person's
// secret read through a link the killed command planted at a glob deny's
// name). The pre-check of what a killed command left (catchUpFirst.run)
// builds its own plantCheck and never gives it the profile's glob deny
// rules (prepareSpec calls setGlobDeny on spec.plant only, and has cleared
// spec.GlobRules by then): its walk's globPlanted judges nothing. The
// next command's own check goes by its own start (catchUp off), and the
// directory was listed by the pre-check's walk in this process, so it is
// not listed again: the symlink prod.env -> leak.txt (rule "**/*.env" =
// deny) that the killed command made stays. The person writes their key
// to prod.env; the next command reads it in leak.txt. The old after-check
// (spec.plant, glob rules set, catchUp from the killed start) set it aside.
//
// Control: the same plant by a command that is not killed is set aside by
// its own check.
func TestAttack204_CatchUpFirstNoGlobRules(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	const key = "AKIA-PERSONS-SECRET-204"
	const plant = `echo notes > leak.txt && ln -s leak.txt prod.env && echo PLANTED`
	for _, c := range []struct {
		name   string
		killed bool
	}{{"control-checked", false}, {"killed", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"README": "x\n"})
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
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
				r := sh(t, &s, "echo next")
				t.Logf("next command: set aside %v; limits %q", quarantined(r), r.CheckLimits)
			} else {
				r := sh(t, &s, plant)
				if !strings.Contains(string(r.Stdout), "PLANTED") {
					t.Fatalf("premise: %s", r.Stderr)
				}
				t.Logf("command: set aside %v", quarantined(r))
			}
			fi, err := os.Lstat(ws + "/prod.env")
			planted := err == nil && fi.Mode()&os.ModeSymlink != 0
			if !planted {
				return
			}
			if !c.killed {
				t.Fatalf("control: the command's own prod.env symlink was kept")
			}
			// The person writes their key where the profile denies it.
			if err := os.WriteFile(ws+"/prod.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := sh(t, &s, `cat leak.txt`)
			t.Errorf("KEPT: the killed command's prod.env -> leak.txt (a glob deny's name) was judged by neither check; the next command read leak.txt: %q (has the key: %v)", r.Stdout, strings.Contains(string(r.Stdout), key))
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack205_CatchUpMovedParentKeepsOldWayLink (review 205, high:
// GitHub Copilot CLI in the person's repository runs the agent's hook).
// The link variant of TestAttack205_CatchUpMovedParentKeepsOldProtectedFile.
// An earlier, checked command over ws makes ws/stash/hooks, a symlink to
// ws2/evil (an empty directory of another root of the agent's; nothing
// protected at that name). A command over ws, killed outright, renames
// ws/stash to ws/.github. linksMadeSince goes by the link's own change
// time, which a rename of the directory above it leaves as it was (a
// rename or hard link of the link itself does change it): the link is
// taken for the person's; .github/hooks leads out of ws (present nowhere
// in ws), and the next command's check records the link as it stands. A
// command over ws2 then writes ws2/evil/evil.json: ws/.github/hooks/
// evil.json exists and is never judged.
//
// Control: the same rename by a command that is not killed is set aside
// by its own check (.github was missing at its start).
func TestAttack205_CatchUpMovedParentKeepsOldWayLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name   string
		killed bool
	}{{"control-checked", false}, {"killed", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws, ws2 := base+"/ws", base+"/ws2"
			mkfiles(t, ws, map[string]string{"README": "x\n"})
			mkfiles(t, ws2, map[string]string{"evil/README": "x\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			r := sh(t, s, "mkdir stash && ln -s "+ws2+"/evil stash/hooks && echo MADE")
			if _, err := os.Lstat(ws + "/stash/hooks"); err != nil {
				t.Fatalf("the earlier command's link: %v (%q %q, set aside %v)", err, r.Stdout, r.Stderr, quarantined(r))
			}
			time.Sleep(1100 * time.Millisecond)
			plant := "mv stash .github && echo PLANTED"
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
				r = sh(t, s, "echo next")
				t.Logf("next command over ws: set aside %v; limits %q", quarantined(r), r.CheckLimits)
			} else {
				r = sh(t, s, plant)
				t.Logf("command over ws: %q %q; set aside %v", r.Stdout, r.Stderr, quarantined(r))
			}
			r = sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws2, machine().Kernel), "printf '{\"hooks\":{\"sessionStart\":[{\"type\":\"command\",\"bash\":\"touch /tmp/pwned\"}]}}' > evil/evil.json && echo WROTE")
			t.Logf("command over ws2: %q %q; set aside %v", r.Stdout, r.Stderr, quarantined(r))
			r = sh(t, s, "echo later")
			t.Logf("later command over ws: set aside %v", quarantined(r))
			b, err := os.ReadFile(ws + "/.github/hooks/evil.json")
			if err != nil {
				return
			}
			if !c.killed {
				t.Fatalf("control: the checked command's .github/hooks link was kept: ws/.github/hooks/evil.json reads %q", b)
			}
			t.Errorf("KEPT: the killed command renamed ws/stash to ws/.github; the link stash/hooks kept its older change time and was taken for the person's; ws/.github/hooks/evil.json (Copilot CLI runs its hooks) reads %q", b)
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack205_CatchUpMovedParentKeepsOldProtectedFile (review 205,
// high: cargo in the person's project runs the agent's rustc-wrapper).
// An earlier command of the agent over ws, checked as usual, writes
// ws/stash/config.toml (nothing protected there). A second command over
// ws, killed outright, renames ws/stash to ws/.cargo (.cargo was
// missing). The rename changes .cargo's change time only: config.toml
// keeps its own, older than the killed command's start. The check of
// what the killed command left (catchUpFirst.run) builds its plantCheck
// after the kill, so .cargo/config.toml is present, not missing, and
// setAsideCaughtUp judges it by its own change time alone (old): kept.
// The next command's own check records it as present at its start:
// never judged. (linksMadeSince's test is as blind: a directory renamed
// above an old symlink leaves the link's change time as it was.)
//
// Control: the same rename by a command that is not killed is set aside
// by its own check (.cargo was missing at its start).
func TestAttack205_CatchUpMovedParentKeepsOldProtectedFile(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name   string
		killed bool
	}{{"control-checked", false}, {"killed", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			// The earlier, checked command: an ordinary directory.
			r := sh(t, s, "mkdir stash && printf '[build]\\nrustc-wrapper = \"/tmp/evil\"\\n' > stash/config.toml && echo MADE")
			if _, err := os.Stat(ws + "/stash/config.toml"); err != nil {
				t.Fatalf("the earlier command's file: %v (%q %q, set aside %v)", err, r.Stdout, r.Stderr, quarantined(r))
			}
			time.Sleep(1100 * time.Millisecond)
			plant := "mv stash .cargo && echo PLANTED"
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
			r = sh(t, s, "echo later")
			t.Logf("later command over ws: set aside %v", quarantined(r))
			b, err := os.ReadFile(ws + "/.cargo/config.toml")
			if err != nil {
				return
			}
			if !c.killed {
				t.Fatalf("control: the checked command's .cargo was kept: ws/.cargo/config.toml reads %q", b)
			}
			t.Errorf("KEPT: the killed command renamed ws/stash to ws/.cargo; its config.toml kept its older change time and was judged by it alone; ws/.cargo/config.toml (cargo runs its rustc-wrapper) reads %q", b)
		})
	}
}

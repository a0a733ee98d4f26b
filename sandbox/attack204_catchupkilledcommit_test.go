package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack204_CatchUpSetsAsideHookedRepoOnKilledCommit (review 204,
// medium: the person's repository set aside at the agent's will). Review
// 203's case moved one step back: the ordinary `git commit` in the
// person's repository (a pre-commit hook of theirs, made long before) is
// the killed command's own, not the next one's. The pre-check of what the
// killed command left (catchUpFirst.run, catchUp on) judges held
// repositories "as any other" and reads one whose HEAD, objects or refs
// changed since the killed start: the person's hook is "a hook git would
// run", and the repository loses HEAD, config and hooks, though the killed
// command ran with them held read-only and they are older than its start.
// Any agent can do it: commit, then have itself killed (SIGKILL of the
// runner); any next command over the root sets the person's work aside.
//
// Control: the same commit by a command that is not killed keeps the
// repository (held, its controls unchanged).
func TestAttack204_CatchUpSetsAsideHookedRepoOnKilledCommit(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name   string
		killed bool
	}{{"control-checked", false}, {"killed", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"README": "r\n"})
			gitIn := func(dir, script string) {
				t.Helper()
				cmd := exec.Command("/bin/sh", "-c", script)
				cmd.Dir = dir
				cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v %s", script, err, out)
				}
			}
			// The person's repository, with a hook of theirs, long before.
			gitIn(ws, "git init -q mine && printf '#!/bin/sh\\nexit 0\\n' > mine/.git/hooks/pre-commit && chmod +x mine/.git/hooks/pre-commit && git -C mine -c user.name=p -c user.email=p@x commit -q --allow-empty -m first")
			time.Sleep(1100 * time.Millisecond)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			const commit = "cd mine && git -c user.name=a -c user.email=a@x commit -q --no-verify --allow-empty -m agent && echo committed"
			var r *Result
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
				gitIn(ws, commit) // the killed command's own commit (no check, no Checked)
				lock.Release()
				time.Sleep(1100 * time.Millisecond)
				r = sh(t, s, "echo next")
			} else {
				r = sh(t, s, commit)
				if string(r.Stdout) != "committed\n" {
					t.Fatalf("premise: the commit did not run: %q %q", r.Stdout, r.Stderr)
				}
			}
			t.Logf("set aside %v", quarantined(r))
			if !exists(ws+"/mine/.git/HEAD") || !exists(ws+"/mine/.git/hooks/pre-commit") {
				if !c.killed {
					t.Fatalf("control: the person's repository was set aside after an ordinary commit: %v", quarantined(r))
				}
				t.Errorf("FALSE SET-ASIDE: a commit by a command then killed had the person's own repository, whose pre-commit hook (older than that command, held read-only to it) neither command could write, set aside by the next command's pre-check: %v", quarantined(r))
			}
		})
	}
}

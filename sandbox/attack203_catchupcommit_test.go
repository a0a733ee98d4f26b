package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack203_CatchUpSetsAsideHookedRepoOnCommit (review 203): after a
// command killed outright (its marker left), the next command's check
// judges held repositories "as any other" (plantjudge.go: held is off
// under catchUp), and on a root's first walk in the process (every
// `turnstile sandbox`, a server's first check of the root) a repository is
// read when its HEAD, objects or refs changed since the killed command's
// start. The person's own repository, made long before, with a pre-commit
// hook of theirs (husky, pre-commit) is then untrusted ("a hook git would
// run") and loses HEAD, config and hooks, though neither command could
// write its config or hooks (held read-only). The next command need only
// run an ordinary `git commit` there; it happens over the killed command's
// own root (ws/sub) and over an enclosing one (ws: catchUpBelow).
//
// Control: the same commit with no killed command before it keeps the
// repository (held, its controls unchanged).
func TestAttack203_CatchUpSetsAsideHookedRepoOnCommit(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name   string
		killed bool
		over   string // the next command's root below base/ws
	}{
		{"control-no-kill", false, "/sub"},
		{"killed-same-root", true, "/sub"},
		{"killed-below", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n"})
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
			// The person's repository, with a hook of theirs, long before.
			gitIn(sub, "git init -q mine && printf '#!/bin/sh\\nexit 0\\n' > mine/.git/hooks/pre-commit && chmod +x mine/.git/hooks/pre-commit && git -C mine -c user.name=p -c user.email=p@x commit -q --allow-empty -m first")
			time.Sleep(1100 * time.Millisecond)
			if c.killed {
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
				lock.Release() // killed having done nothing: no check, no Checked
				time.Sleep(1100 * time.Millisecond)
			}
			root := ws + c.over
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, root, machine().Kernel)
			r := sh(t, s, "cd "+sub+"/mine && git -c user.name=a -c user.email=a@x commit -q --no-verify --allow-empty -m agent && echo committed")
			if string(r.Stdout) != "committed\n" {
				t.Fatalf("premise: the commit did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("next command over %s: set aside %+v", root, quarantined(r))
			if !exists(sub+"/mine/.git/HEAD") || !exists(sub+"/mine/.git/hooks/pre-commit") {
				if !c.killed {
					t.Fatalf("control: the person's repository was set aside after an ordinary commit with no killed command: %v", quarantined(r))
				}
				t.Errorf("FALSE SET-ASIDE: after a command killed over ws/sub, an ordinary git commit by the next command (over %s) had the person's own repository, whose pre-commit hook neither command could write, set aside: %v", root, quarantined(r))
			}
		})
	}
}

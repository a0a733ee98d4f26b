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

// TestAttack204_CatchUpKilledRelinkedInclude (review 204, high: host code
// execution in the person's git). The person's repository ws/proj
// includes ../../shared/inc.gitconfig, ws/shared being their symlink to
// ws/conf. An earlier, checked command made evil/inc.gitconfig (with a
// core.fsmonitor program: nothing protected there). A command then
// killed outright retargets ws/shared to evil. The check of what it left
// (catchUpFirst.run, as the old after-check) builds its plantCheck after
// the kill: linkRefs records where shared leads now (evil) as where it
// led, so setAsideRelinked finds nothing; setAsideCaughtUp looks at the
// include by Lstat through the link, at evil/inc.gitconfig, older than the
// killed start; the repository's HEAD, objects and refs did not change.
// Nothing is set aside, the markers go; the person's next git status runs
// the fsmonitor program. (The after-check before 51203f81 quarantined the
// repository here, "include.path is not a trusted key": it judged the held
// repository as any other after the next command had held it; the
// pre-check, run before the holds, does not read it.)
//
// Control: the same retarget by a command that is not killed is set aside
// by its own check (setAsideRelinked).
func TestAttack204_CatchUpKilledRelinkedInclude(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name   string
		killed bool
	}{{"control-checked", false}, {"killed", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			marker := base + "/pwned"
			mkfiles(t, ws, map[string]string{"conf/inc.gitconfig": "[user]\n\tname = person\n"})
			host := func(dir, script string) {
				t.Helper()
				cmd := exec.Command("/bin/sh", "-c", script)
				cmd.Dir = dir
				cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v %s", script, err, out)
				}
			}
			host(ws, "ln -s conf shared && git init -q proj && printf '[include]\\n\\tpath = ../../shared/inc.gitconfig\\n' >> proj/.git/config")
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			r := sh(t, s, "mkdir evil && printf '[core]\\n\\tfsmonitor = touch "+marker+"\\n' > evil/inc.gitconfig && echo MADE")
			if !strings.Contains(string(r.Stdout), "MADE") {
				t.Fatalf("premise: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("earlier command: set aside %v", quarantined(r))
			time.Sleep(1100 * time.Millisecond)
			const relink = "rm shared && ln -s evil shared && echo RELINKED"
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
				host(ws, relink) // the killed command's (no check, no Checked)
				lock.Release()
				time.Sleep(1100 * time.Millisecond)
				r = sh(t, s, "echo next")
			} else {
				r = sh(t, s, relink)
				if !strings.Contains(string(r.Stdout), "RELINKED") {
					t.Fatalf("premise: %q %q", r.Stdout, r.Stderr)
				}
			}
			t.Logf("set aside %v; limits %q", quarantined(r), r.CheckLimits)
			cmd := exec.Command("git", "status")
			cmd.Dir = ws + "/proj"
			cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			out, _ := cmd.CombinedOutput()
			t.Logf("the person's git status: %s", out)
			if !exists(marker) {
				return
			}
			if !c.killed {
				t.Fatalf("control: the checked command's relinked include ran its fsmonitor program")
			}
			t.Errorf("ESCAPED: the killed command's retarget of the person's ws/shared (an include's way) was judged by neither check; the person's git status ran the agent's core.fsmonitor")
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack146_KilledNestedRootMarkerUnread (review 146, low-medium: a
// command over a sub-project killed outright, then a command of a turn
// over the enclosing workspace; `turnstile sandbox --root ws/sub`, then
// `--root ws`, or a server's first walk of ws). The pending marker of a
// killed command lies beside the lock file of each of its exclusive roots
// (rootlock.go). The next command reads the markers of its own exclusive
// roots only (lockRootsLazy: t.exclusive); a command over ws locks ws
// exclusive and the directories above it shared, and never looks at the
// lock file of ws/sub, the killed command's root, although ws/sub is
// inside what it checks. Its check (a first walk, by times alone) runs
// from its own start: a repository the killed command made in ws/sub is
// not judged, and the person's git status there runs its core.fsmonitor
// program (until some later command over ws/sub itself reads the marker).
//
// The killed command is reproduced as what the next command sees of it
// (its roots' lock taken, its start marked, the plant made, the lock
// released without Checked). Control: the same next command over ws/sub
// itself reads the marker and sets the repository aside.
func TestAttack146_KilledNestedRootMarkerUnread(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name string
		over string // the next command's root, below the workspace
	}{{"control-same-root", "sub"}, {"enclosing-root", ""}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n", "README": "r\n"})
			sub := ws + "/sub"
			marker := base + "/pwned"
			lock, err := lockRoots(context.Background(), []string{sub})
			if err != nil {
				t.Fatal(err)
			}
			lock.MarkStarted(coarseNow())
			if dir, err := rootLockDir(); err == nil {
				t.Cleanup(func() { os.Remove(pendingMarker(lockFileName(dir, sub))) })
			}
			cmd := exec.Command("/bin/sh", "-c", "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+marker+"\\n' >> evil/.git/config")
			cmd.Dir = sub
			cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the killed command's plant: %v %s", err, out)
			}
			lock.Release() // killed: no check, no Checked
			time.Sleep(1100 * time.Millisecond)
			root := ws
			if c.over != "" {
				root = ws + "/" + c.over
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, root, machine().Kernel)
			r := sh(t, s, "echo next")
			t.Logf("next command over %s: set aside %v", root, quarantined(r))
			if exists(sub + "/evil/.git/HEAD") {
				st := exec.Command("git", "status")
				st.Dir = sub + "/evil"
				st.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
				out, _ := st.CombinedOutput()
				t.Logf("host git status in sub/evil:\n%s", out)
			}
			pwned := exists(marker)
			if c.over != "" {
				if pwned || exists(sub+"/evil/.git/HEAD") {
					t.Errorf("control: the next command over the killed command's own root did not set its repository aside")
				}
				return
			}
			if pwned {
				t.Errorf("ESCAPED: a command over the enclosing workspace did not read the pending marker of the killed command's root ws/sub; its check left the repository the killed command made there, and the person's git status ran its core.fsmonitor program")
			}
		})
	}
}

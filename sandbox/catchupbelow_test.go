package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestCatchUpBelowKeepsOthersWork: a command over ws/sub killed outright
// leaves a marker that the next holder of an enclosing root (ws, or "/")
// reads; its check judged the whole of its roots from the killed
// command's start, so what any other program made anywhere below since
// was taken for the killed command's plant and set aside (a turn rooted at
// "/" set aside the test suite's built binaries and the gitdir files of
// work trees made meanwhile). The killed command could write ws/sub only:
// ws/sub is checked from its start, the rest of ws from the next
// command's own.
//
// Here the person makes a repository of their own in ws/other (its
// core.fsmonitor program is theirs) after the kill: it is kept, while the
// repository the killed command made in ws/sub is set aside (the
// control, as TestAttack146_KilledNestedRootMarkerUnread's).
func TestCatchUpBelowKeepsOthersWork(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
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
		t.Cleanup(func() { os.Remove(pendingMarker(lockFileName(dir, sub))) })
	}
	gitIn(sub, "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+base+"/pwned\\n' >> evil/.git/config")
	lock.Release() // killed: no check, no Checked
	// The person's own repository, made after the kill, before the next
	// command (a second later: the check compares whole seconds).
	gitIn(ws+"/other", "git init -q mine && printf '[core]\\n\\tfsmonitor = true\\n' >> mine/.git/config")
	time.Sleep(1100 * time.Millisecond)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	r := sh(t, s, "echo next")
	if string(r.Stdout) != "next\n" {
		t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
	}
	if exists(sub + "/evil/.git/HEAD") {
		t.Errorf("control: the repository the killed command made in ws/sub was not set aside: %v", quarantined(r))
	}
	if !exists(ws + "/other/mine/.git/HEAD") {
		t.Errorf("the person's repository in ws/other, made after the killed command over ws/sub started, was set aside by the next command over ws: %v", quarantined(r))
	}
}

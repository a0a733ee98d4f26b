package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSweepKillGroupsRemovesOnlyTheDeads: a kill group left by a process
// that no longer runs (a server killed outright) is removed at the next
// process's first group; one of a running process stays, and so does a
// dead process's group that still holds a process (EBUSY).
func TestSweepKillGroupsRemovesOnlyTheDeads(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kill groups need root")
	}
	mnt, err := cgroup2Mount()
	if err != nil {
		t.Skip("no cgroup v2: ", err)
	}
	own, err := ownCgroup()
	if err != nil {
		t.Skip(err)
	}
	parent := filepath.Join(mnt, own)
	// A pid that ran and was reaped.
	c := exec.Command("/bin/true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	dead := c.Process.Pid
	deadDir := filepath.Join(parent, fmt.Sprintf("turnstile-cmd-%d-1", dead))
	liveDir := filepath.Join(parent, "turnstile-cmd-1-1") // init runs
	busyDir := filepath.Join(parent, fmt.Sprintf("turnstile-cmd-%d-2", dead))
	other := filepath.Join(parent, fmt.Sprintf("someone-else-%d-1", dead))
	for _, d := range []string{deadDir, liveDir, busyDir, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(d) })
	}
	sleeper := exec.Command("/bin/sleep", "600")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	if err := os.WriteFile(busyDir+"/cgroup.procs", fmt.Appendf(nil, "%d", sleeper.Process.Pid), 0); err != nil {
		t.Fatal(err)
	}
	sweepKillGroups(parent)
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Errorf("the dead process's empty group is still there: %v", err)
	}
	for _, d := range []string{liveDir, busyDir, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	sleeper.Process.Kill()
	sleeper.Wait()
}

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
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

// TestCommandCannotLeaveItsKillGroup: a command runs in a cgroup of its own
// (its /proc/self/cgroup names it: the control that the group is there)
// and cannot move itself out of it, neither to the hierarchy's root nor to
// the server's cgroup, in each mode that runs through the helper; the
// group is removed once the command has ended.
func TestCommandCannotLeaveItsKillGroup(t *testing.T) {
	f := requireKernel(t, true)
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
	targets := []string{filepath.Join(mnt, "cgroup.procs"), filepath.Join(mnt, own, "cgroup.procs")}
	for _, mode := range []domain.Mode{domain.ModeSupervised, domain.ModeAutoAcceptEdits} {
		ws := tempWorkspace(t)
		s := snapshotFor(t, mode, ws, f.Kernel)
		script := "cat /proc/self/cgroup; for t in " + strings.Join(targets, " ") + "; do echo $$ > $t && echo moved; done; cat /proc/self/cgroup"
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		out := string(r.Stdout)
		var groups []string
		for line := range strings.SplitSeq(out, "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				groups = append(groups, p)
			}
		}
		if len(groups) != 2 || !strings.Contains(groups[0], "/turnstile-cmd-") {
			t.Fatalf("%s: the command is not in a kill group of its own: %q (stderr %q)", mode, out, r.Stderr)
		}
		if strings.Contains(out, "moved") || groups[1] != groups[0] {
			t.Errorf("%s: the command moved itself out of its kill group: %q", mode, out)
		}
		if _, err := os.Stat(filepath.Join(mnt, groups[0])); !os.IsNotExist(err) {
			t.Errorf("%s: the command's kill group %s is still there after it ended: %v", mode, groups[0], err)
		}
	}
}

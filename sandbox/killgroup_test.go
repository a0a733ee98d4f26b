package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestSweepKillGroupsRemovesOnlyTheDeads: a kill group left by a process
// that no longer runs (a server killed outright, its reaper too) is killed
// and removed at the next process's first group, with what still runs in
// it; a running process's group stays, with its process alive, and so does
// a directory of another name.
func TestSweepKillGroupsRemovesOnlyTheDeads(t *testing.T) {
	parent := killGroupParent(t)
	// A pid that ran and was reaped.
	c := exec.Command("/bin/true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	dead := c.Process.Pid
	deadDir := filepath.Join(parent, fmt.Sprintf("turnstile-cmd-%d-1", dead))
	busyDir := filepath.Join(parent, fmt.Sprintf("turnstile-cmd-%d-2", dead))
	liveDir := filepath.Join(parent, "turnstile-cmd-1-1") // init runs
	other := filepath.Join(parent, fmt.Sprintf("someone-else-%d-1", dead))
	for _, d := range []string{deadDir, busyDir, liveDir, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(d) })
	}
	orphan, alive := sleeperIn(t, busyDir), sleeperIn(t, liveDir)
	sweepKillGroups(parent, false)
	for _, d := range []string{deadDir, busyDir} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("the dead process's group %s is still there: %v", d, err)
		}
	}
	if err := orphan.Wait(); err == nil {
		t.Errorf("the process left in the dead's group was not killed")
	}
	for _, d := range []string{liveDir, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if err := alive.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("control: the process in a live process's group was killed: %v", err)
	}
}

// killGroupParent is where this process's kill groups go (it skips the
// test where there are none).
func killGroupParent(t *testing.T) string {
	t.Helper()
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
	return filepath.Join(mnt, own)
}

// sleeperIn starts a sleep in the cgroup dir (killed and reaped at the
// test's end if still there).
func sleeperIn(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	c := exec.Command("/bin/sleep", "600")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/cgroup.procs", fmt.Appendf(nil, "%d", c.Process.Pid), 0); err != nil {
		c.Process.Kill()
		c.Wait()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Process.Kill()
		if c.ProcessState == nil {
			c.Wait()
		}
	})
	return c
}

// TestCommandCannotLeaveItsKillGroup: a command runs in a cgroup of its own
// (its /proc/self/cgroup names it: the control that the group is there)
// and cannot move itself out of it, neither to the hierarchy's root nor to
// the server's cgroup, in each mode that runs through the helper; the
// group is removed once the command has ended.
func TestCommandCannotLeaveItsKillGroup(t *testing.T) {
	f := requireKernel(t, true)
	parent := killGroupParent(t)
	mnt, _ := cgroup2Mount()
	targets := []string{filepath.Join(mnt, "cgroup.procs"), filepath.Join(parent, "cgroup.procs")}
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

// TestNewKillGroupSkipsATakenName: a group of the name this process would
// use next, which the sweep did not remove (it held a process), does not
// leave a command without a group: the next name is taken. Control: the
// taken name stays the other's.
func TestNewKillGroupSkipsATakenName(t *testing.T) {
	parent := killGroupParent(t)
	kg, err := newKillGroup() // after the sweep of this process's first
	if err != nil {
		t.Skip(err)
	}
	kg.release()
	taken := filepath.Join(parent, killGroupPrefix(os.Getpid())+fmt.Sprint(killGroupSeq.Load()+1))
	if err := os.Mkdir(taken, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(taken) })
	kg, err = newKillGroup()
	if err != nil {
		t.Fatalf("with %s taken, no kill group: %v", filepath.Base(taken), err)
	}
	defer kg.release()
	if kg.dir == taken {
		t.Fatalf("the taken name was used")
	}
	if _, err := os.Stat(taken); err != nil {
		t.Errorf("control: the taken group is gone: %v", err)
	}
}

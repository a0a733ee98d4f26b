package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack196_StaleGroupOfAReusedPidLeavesTheCommandWithoutAKillGroup:
// kill groups are named turnstile-cmd-PID-SEQ, SEQ counting from 1 in each
// process, and the sweep of the groups a killed process left skips those
// named with the sweeper's own pid (sweepKillGroups: n == os.Getpid()).
// A process killed outright (a server, `turnstile sandbox`: SIGKILL, the
// OOM killer) leaves its groups; once its pid is used again by the next
// turnstile process (pid reuse; a container's fixed pid), that process's
// sweep keeps them and its newKillGroup meets its own names: mkdir fails
// (EEXIST), newKillGroup returns an error, and Run starts the command with
// no cgroup at all, silently (the process-group kill and the PID
// namespace's end, the very gap review 195 closed: a setsid'd process
// outlives the stop while the command delays its leader's exit). The stale
// group is never removed either. Stand-in for the killed process: an empty
// directory of the name it would have left (what a killed process leaves,
// TestSweepKillGroupsRemovesOnlyTheDeads). Control: the same command before
// runs in a group of its own; and the sweep removes the same leftover
// under another dead process's pid.
func TestAttack196_StaleGroupOfAReusedPidLeavesTheCommandWithoutAKillGroup(t *testing.T) {
	f := requireKernel(t, true)
	kg, err := newKillGroup()
	if err != nil {
		t.Skipf("no kill groups here (%v): the claim is a root server's on cgroup v2", err)
	}
	kg.release()
	mnt, _ := cgroup2Mount()
	own, _ := ownCgroup()
	parent := filepath.Join(mnt, own)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	group := func() string {
		p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/cat", "/proc/self/cgroup"}, TimeoutMs: 30000}, os.Environ())
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), p)
		WaitCleanup()
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("run: %v %+v", err, r)
		}
		for line := range strings.SplitSeq(string(r.Stdout), "\n") {
			if g, ok := strings.CutPrefix(line, "0::"); ok {
				return g
			}
		}
		t.Fatalf("no cgroup v2 line in %q", r.Stdout)
		return ""
	}
	// Control: a command runs in a kill group of its own.
	if g := group(); !strings.Contains(g, "/turnstile-cmd-") {
		t.Fatalf("control: the command ran in %q, not a kill group", g)
	}
	// Control: a dead pid's leftover is swept.
	dead := filepath.Join(parent, fmt.Sprintf("turnstile-cmd-%d-%d", 1<<22+12345, killGroupSeq.Load()+1))
	if err := os.Mkdir(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dead) })
	// What a killed process of this pid left: its group of the next
	// number this process will use.
	stale := filepath.Join(parent, fmt.Sprintf("turnstile-cmd-%d-%d", os.Getpid(), killGroupSeq.Load()+1))
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(stale) })
	sweepKillGroups(parent, true) // what this process's first group runs
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("control: a dead process's empty group is not swept: %v", err)
	}
	staleLeft := false
	if _, err := os.Stat(stale); err == nil {
		staleLeft = true
	}
	g := group()
	t.Logf("with %s left by a killed process of this pid (still there after the sweep: %v), the command ran in %q", filepath.Base(stale), staleLeft, g)
	if !strings.Contains(g, "/turnstile-cmd-") {
		t.Errorf("the command ran without a kill group (in %q): a killed process of this pid left %s, which the sweep keeps (own pid) and newKillGroup meets (EEXIST); the stop's cgroup.kill does not reach a process it puts in a session of its own", g, filepath.Base(stale))
	}
}

package sandbox

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// keepSpares turns spares on for the test, ends them after it, and returns
// a channel that receives each spare ended unused.
func keepSpares(t *testing.T) chan *earlyHelper {
	t.Helper()
	ended := make(chan *earlyHelper, 16)
	spare.mu.Lock()
	spare.ended = func(e *earlyHelper) { ended <- e }
	spare.mu.Unlock()
	KeepSpareHelper(true)
	t.Cleanup(func() {
		KeepSpareHelper(false)
		spare.mu.Lock()
		spare.ended = nil
		spare.mu.Unlock()
	})
	return ended
}

// setSpare sets one of the spares' settings under their lock and returns
// what it was.
func setSpare[T any](p *T, v T) T {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	old := *p
	*p = v
	return old
}

// parkedSpare waits for the spare the last command's Run started and
// returns it (the test fails without one).
func parkedSpare(t *testing.T) *earlyHelper {
	t.Helper()
	spare.wg.Wait()
	e := earlyHelpers.Load()
	if e == nil || e.dir != "" {
		t.Fatalf("no spare helper is held: %+v", e)
	}
	return e
}

// TestSpareHelperTakesTheNextCommand: with spares kept (a server), a
// restricted command leaves a spare helper started in "/", and the next
// command, in another workspace and working directory, runs in it: started
// once, taken, none ended; the command is confined as one given a helper of
// its own (its working directory, a workspace write that lands as the
// workspace's owner, a write outside refused, its own PID namespace). The
// control is the first command, which found no spare and started its
// helper itself. Turning spares off ends the one held.
func TestSpareHelperTakesTheNextCommand(t *testing.T) {
	f := requireKernel(t, true)
	keepSpares(t)
	ws1, ws2, outside := tempWorkspace(t), tempWorkspace(t), tempWorkspace(t)
	if err := os.Mkdir(ws2+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	before := earlyNow()
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws1, f.Kernel), "echo first")
	if got := earlyNow().since(before); got.taken != 0 || r.ExitCode != 0 {
		t.Fatalf("the first command: %+v, exit %d %s", got, r.ExitCode, r.Stderr)
	}
	e := parkedSpare(t)
	before = earlyNow()
	r = sh(t, snapshotAt(t, domain.ModeAutoAcceptEdits, ws2, ws2+"/sub"),
		"pwd; echo $$; echo in > in.txt; echo x > "+outside+"/x")
	if got := earlyNow().since(before); got.taken != 1 || got.abandoned != 0 {
		t.Fatalf("spares started/taken/ended unused: %+v", got)
	}
	if e.p.cmd.ProcessState == nil || e.p.cmd.ProcessState.ExitCode() != r.ExitCode {
		t.Fatalf("the spare did not run the command (exit %d): %v", r.ExitCode, e.p.cmd.ProcessState)
	}
	lines := strings.Fields(string(r.Stdout))
	if len(lines) != 2 || lines[0] != ws2+"/sub" || lines[1] != "1" {
		t.Fatalf("cwd and pid: %q (%s)", r.Stdout, r.Stderr)
	}
	if !exists(ws2+"/sub/in.txt") || exists(outside+"/x") {
		t.Fatalf("workspace write %v, outside write %v: %s", exists(ws2+"/sub/in.txt"), exists(outside+"/x"), r.Stderr)
	}
	var st unix.Stat_t
	if err := unix.Stat(ws2+"/sub/in.txt", &st); err != nil || int(st.Uid) != os.Geteuid() {
		t.Fatalf("the file is owned by uid %d, want the workspace's owner %d (%v)", st.Uid, os.Geteuid(), err)
	}
	// That command left another; turning spares off ends it.
	e = parkedSpare(t)
	before = earlyNow()
	KeepSpareHelper(false)
	if got := earlyNow().since(before); got.abandoned != 1 || earlyHelpers.Load() != nil {
		t.Fatalf("spares ended: %+v", got)
	}
	if e.p.cmd.ProcessState == nil || e.p.cmd.ProcessState.ExitCode() != ExitSandboxFailure {
		t.Fatalf("the ended spare: %v", e.p.cmd.ProcessState)
	}
}

// TestSpareHelperNotGivenACommandAfterAMountChange (its watcher off): a spare's mount table is
// a copy of this process's made when it started ("/" is private here, so
// nothing made later reaches it). After a mount here, the next command is
// not run in the spare, which is ended, but in a helper of its own, which
// sees the new mount; the spare started after that command is taken by the
// one after it (the control: nothing changed).
func TestSpareHelperNotGivenACommandAfterAMountChange(t *testing.T) {
	f := requireKernel(t, true)
	// The check at the take alone: the watcher would end the spare first
	// (TestSpareHelperEndedWhenTheHostUnmounts).
	setSpare(&spareWatch, false)
	defer setSpare(&spareWatch, true)
	ended := keepSpares(t)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	if err := os.Mkdir(ws+"/mnt", 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, s, "true")
	stale := parkedSpare(t)
	if err := unix.Mount("tmpfs", ws+"/mnt", "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(ws+"/mnt", unix.MNT_DETACH)
	if err := os.WriteFile(ws+"/mnt/note", []byte("mounted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := earlyNow()
	r := sh(t, s, "cat mnt/note")
	if got := earlyNow().since(before); got.taken != 0 || got.abandoned != 1 {
		t.Fatalf("spares started/taken/ended unused: %+v (%q %s)", got, r.Stdout, r.Stderr)
	}
	select {
	case e := <-ended:
		if e != stale {
			t.Fatal("another spare was ended")
		}
	default:
		t.Fatal("the stale spare was not ended")
	}
	if string(r.Stdout) != "mounted\n" {
		t.Fatalf("the command did not see the mount: %q %s", r.Stdout, r.Stderr)
	}
	parkedSpare(t)
	before = earlyNow()
	r = sh(t, s, "cat mnt/note")
	if got := earlyNow().since(before); got.taken != 1 || string(r.Stdout) != "mounted\n" {
		t.Fatalf("spares %+v, %q %s", got, r.Stdout, r.Stderr)
	}
}

// TestSpareHelperKeptForACommandWithInput: a command with input is given a
// helper of its own (a spare's standard input is not the command's); the
// spare stays held, unused, and the next command without input runs in
// it. The command read its input (the control that it ran).
func TestSpareHelperKeptForACommandWithInput(t *testing.T) {
	f := requireKernel(t, true)
	keepSpares(t)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	sh(t, s, "true")
	e := parkedSpare(t)
	before := earlyNow()
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/cat"}}, func(p *Plan) { p.Stdin = bytes.NewReader([]byte("input\n")) })
	if err != nil || string(r.Stdout) != "input\n" {
		t.Fatalf("%q %s %v", r.Stdout, r.Stderr, err)
	}
	if got := earlyNow().since(before); got.taken != 0 || got.abandoned != 0 || earlyHelpers.Load() != e {
		t.Fatalf("spares started/taken/ended unused: %+v (held %p, was %p)", got, earlyHelpers.Load(), e)
	}
	before = earlyNow()
	sh(t, s, "true")
	if got := earlyNow().since(before); got.taken != 1 || e.p.cmd.ProcessState == nil {
		t.Fatalf("spares started/taken/ended unused: %+v", got)
	}
}

// TestSpareHelperEndsUnused: a spare no command takes within spareMaxAge
// is ended (having run nothing: it exits as a helper whose plan never
// came), and the slot is empty; none is started again until a command
// runs.
func TestSpareHelperEndsUnused(t *testing.T) {
	f := requireKernel(t, true)
	ended := keepSpares(t)
	defer setSpare(&spareMaxAge, setSpare(&spareMaxAge, 200*time.Millisecond))
	ws := tempWorkspace(t)
	sh(t, snapshotFor(t, domain.ModeSupervised, ws, f.Kernel), "true")
	e := parkedSpare(t)
	select {
	case got := <-ended:
		if got != e {
			t.Fatal("another spare was ended")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the spare was not ended after spareMaxAge")
	}
	if earlyHelpers.Load() != nil || e.p.cmd.ProcessState == nil || e.p.cmd.ProcessState.ExitCode() != ExitSandboxFailure {
		t.Fatalf("held %p, the spare: %v", earlyHelpers.Load(), e.p.cmd.ProcessState)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(e.p.cmd.Process.Pid)); err == nil {
		t.Fatal("the spare's process is still there")
	}
}

// TestSpareHelperKilledWithTheCommand: a command run in a spare is killed
// on its timeout with everything it started, a process in a new session
// too: the spare's own cgroup, where it started, is the command's kill
// group, and it is empty (or gone) once Run has returned.
func TestSpareHelperKilledWithTheCommand(t *testing.T) {
	f := requireKernel(t, true)
	keepSpares(t)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	sh(t, s, "true")
	e := parkedSpare(t)
	if e.p.kg == nil {
		t.Skip("no kill groups on this machine (cgroup v2 as root)")
	}
	before := earlyNow()
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "setsid sleep 60 & echo started > started.txt; sleep 60"}, TimeoutMs: 500}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), p)
	WaitCleanup()
	if err != nil || !r.TimedOut || !exists(ws+"/started.txt") {
		t.Fatalf("%+v %v", r, err)
	}
	if got := earlyNow().since(before); got.taken != 1 {
		t.Fatalf("spares started/taken/ended unused: %+v", got)
	}
	procs, err := os.ReadFile(e.p.kg.dir + "/cgroup.procs")
	if err == nil && len(bytes.TrimSpace(procs)) > 0 {
		t.Fatalf("processes left in the command's kill group: %s", procs)
	}
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestSpareHelperEndedWhenTheHostUnmounts: an idle spare's copy of the
// mount table keeps a filesystem the host unmounts in use ("/" is private
// here); its watcher ends the spare as soon as the host's mount table
// changes, not at the next command. Control: before the unmount the
// spare's copy has the mount (what is looked at is the spare's table).
// (Review 206 found the spare held it until its 60 s age.)
func TestSpareHelperEndedWhenTheHostUnmounts(t *testing.T) {
	f := requireKernel(t, true)
	ended := keepSpares(t)
	ws := tempWorkspace(t)
	mnt := ws + "/vol"
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	mounted := true
	defer func() {
		if mounted {
			unix.Unmount(mnt, unix.MNT_DETACH)
		}
	}()
	sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), "true")
	e := parkedSpare(t)
	spareHas := func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(e.p.cmd.Process.Pid) + "/mountinfo")
		if err != nil {
			return false // the spare is gone
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 4 && f[4] == mnt {
				return true
			}
		}
		return false
	}
	if !spareHas() {
		t.Fatal("control: the spare's mount table lacks the mount made before it started")
	}
	if err := unix.Unmount(mnt, 0); err != nil {
		t.Fatal(err)
	}
	mounted = false
	select {
	case got := <-ended:
		if got != e {
			t.Fatal("another spare was ended")
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the idle spare, pid %d, was not ended after the host's unmount (held mounted: %v)", e.p.cmd.Process.Pid, spareHas())
	}
	if spareHas() || earlyHelpers.Load() != nil {
		t.Fatalf("the ended spare still holds the mount (%v), or the slot a spare", spareHas())
	}
}

package sandbox

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestRunReleasesAfterReturning: the names held for a command and its
// temp dir exist while it runs and are gone once WaitCleanup returns,
// after a Run that itself does not wait for them.
func TestRunReleasesAfterReturning(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `test -d .codex && test -d .agents && echo "$TMPDIR"`}}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), p) // not the run helper: it waits
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("the command did not see its held names: %+v %v", r, err)
	}
	tmp := strings.TrimSpace(string(r.Stdout))
	if tmp == "" {
		t.Fatal("no TMPDIR")
	}
	// Named for this process, so that a sweep removes it if the process
	// is killed outright before its cleanup (tmpsweep.go).
	if pid, ok := tmpDirPid(filepath.Base(tmp)); !ok || pid != os.Getpid() {
		t.Errorf("the command's temp dir %s is not named for the process that made it (%d)", tmp, os.Getpid())
	}
	WaitCleanup()
	for _, p := range []string{ws + "/.codex", ws + "/.agents", tmp} {
		if exists(p) {
			t.Errorf("%s is left after WaitCleanup", p)
		}
	}
}

// TestWaitCleanupWaitsForEveryCleanup: WaitCleanup returns only once every
// cleanup started before it has finished, also while others start (a
// server's Run during a wait: no sync.WaitGroup reuse panic).
func TestWaitCleanupWaitsForEveryCleanup(t *testing.T) {
	const n = 50
	gate := make(chan struct{})
	var finished atomic.Int32
	for range n {
		afterRun(func() { <-gate; finished.Add(1) })
	}
	seen := make(chan int32)
	go func() { WaitCleanup(); seen <- finished.Load() }()
	var more sync.WaitGroup
	for range 8 { // new cleanups, and waiters, while the first wait runs
		more.Go(func() { afterRun(func() { finished.Add(1) }); WaitCleanup() })
	}
	close(gate)
	if got := <-seen; got < n {
		t.Fatalf("WaitCleanup returned with %d of the first %d cleanups finished", got, n)
	}
	more.Wait()
	WaitCleanup()
	if got := finished.Load(); got != n+8 {
		t.Fatalf("%d cleanups ran, want %d", got, n+8)
	}
}

// TestReleaseDuringTheNextCommand: the release of one command's held names
// runs after its Run returned (held back here); the next command over the
// same root waits for it, since the roots' lock goes with the release
// (rootlock.go; before the lock, the two overlapped, and the test checked
// that the release left the next command's hold), and the next command's
// hold stays: it cannot create .codex. Control: it creates a name that is
// not held. Afterwards .codex is released.
func TestReleaseDuringTheNextCommand(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	gate := make(chan struct{})
	var opened sync.Once
	open := func() { opened.Do(func() { close(gate) }) }
	setHook := func(f func()) { cleanups.mu.Lock(); afterRunStarts = f; cleanups.mu.Unlock() }
	setHook(func() { <-gate })
	// A failure before the gate opens must not leave the first command's
	// cleanups blocked: every later WaitCleanup (the run helper's) would
	// wait for them until the test binary times out.
	t.Cleanup(func() { setHook(nil); open() })
	plan := func(script string) *Plan {
		p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, os.Environ())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if r, err := Run(context.Background(), plan("test -d .codex")); err != nil || r.ExitCode != 0 {
		t.Fatalf("the first command did not see .codex held: %+v %v", r, err)
	}
	for _, f := range []string{"ready", "go"} {
		if err := unix.Mkfifo(ws+"/"+f, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	type out struct {
		r   *Result
		err error
	}
	second := make(chan out, 1)
	go func() {
		r, err := Run(context.Background(), plan("echo up > ready; read x < go; mkdir .codex && echo CREATED; mkdir other && echo CONTROL"))
		second <- out{r, err}
	}()
	// Opened read-write, the FIFO's open does not wait for a writer: a
	// second command that ends without coming up fails the test instead
	// of blocking it.
	ready, err := os.OpenFile(ws+"/ready", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	up := make(chan string, 1)
	go func() { line, _ := bufio.NewReader(ready).ReadString('\n'); up <- line }()
	setHook(nil)
	open()        // the first command's release runs now, then its lock goes…
	WaitCleanup() // …and is done (the second's Run has not returned)
	select {
	case line := <-up:
		if line != "up\n" {
			t.Fatalf("the second command did not come up: %q", line)
		}
	case o := <-second:
		t.Fatalf("the second command ended before it came up: %+v %v", o.r, o.err)
	}
	if err := os.WriteFile(ws+"/go", []byte("go\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	o := <-second
	if o.err != nil || o.r == nil {
		t.Fatalf("second command: %+v %v", o.r, o.err)
	}
	if strings.Contains(string(o.r.Stdout), "CREATED") {
		t.Fatalf("the first command's release let the second create .codex: %q %q", o.r.Stdout, o.r.Stderr)
	}
	if !strings.Contains(string(o.r.Stdout), "CONTROL") {
		t.Fatalf("the control could not create a name that is not held: %q %q", o.r.Stdout, o.r.Stderr)
	}
	WaitCleanup()
	if exists(ws + "/.codex") {
		t.Fatal(".codex is left after both commands")
	}
}

// TestReleaseOfANestedHeldGitDir: a command whose cwd is below the root
// holds a missing ".git" there (an empty directory); planned while its
// release is still pending (its run waits for the release since the
// roots' lock), the next command, from the root, walks for nested repositories
// (the walk cache expired, as walkTTL after the last walk) and meets that
// empty ".git". An empty directory is no repository: the next command must
// not take it for one and hold names inside it, or the first command's
// release finds it not empty, cannot remove it, and the hold is left in
// the workspace for good. Control: a real nested repository is still
// found, its hooks read-only.
func TestReleaseOfANestedHeldGitDir(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"sub/": "", "proj/f": "x"})
	hostGit(t, ws+"/proj", "init", "-q")
	snap := func(cwd string) *domain.TurnExecutionSecuritySnapshot {
		s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
			Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
			Cwd:     cwd, WorkspaceRoot: ws, Kernel: machine().Kernel,
		})
		if err != nil {
			t.Fatal(err)
		}
		return &s
	}
	plan := func(cwd, script string) *Plan {
		p, err := PlanSpawn(snap(cwd), SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, os.Environ())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	gate := make(chan struct{})
	var opened sync.Once
	open := func() { opened.Do(func() { close(gate) }) }
	setHook := func(f func()) { cleanups.mu.Lock(); afterRunStarts = f; cleanups.mu.Unlock() }
	setHook(func() { <-gate })
	t.Cleanup(func() { setHook(nil); open(); WaitCleanup() })
	if r, err := Run(context.Background(), plan(ws+"/sub", "test -d .git")); err != nil || r.ExitCode != 0 {
		t.Fatalf("the first command did not see sub/.git held: %+v %v", r, err)
	}
	setHook(nil)
	if !exists(ws + "/sub/.git") {
		t.Fatal("sub/.git is not held after the first command returned")
	}
	walkCache.mu.Lock()
	delete(walkCache.m, ws)
	walkCache.mu.Unlock()
	// Since the roots' lock (rootlock.go) the next command waits for the
	// first one's release: it is started, then the release let go.
	type out struct {
		r   *Result
		err error
	}
	next := make(chan out, 1)
	p := plan(ws, "echo evil > proj/.git/hooks/post-checkout || echo REFUSED")
	go func() { r, err := Run(context.Background(), p); next <- out{r, err} }()
	open() // the first command's release runs now
	o := <-next
	r, err := o.r, o.err
	if err != nil || !strings.Contains(string(r.Stdout), "REFUSED") || exists(ws+"/proj/.git/hooks/post-checkout") {
		t.Fatalf("control: the nested repository's hooks were not read-only: %+v %v", r, err)
	}
	WaitCleanup()
	if exists(ws + "/sub/.git") {
		ents, _ := os.ReadDir(ws + "/sub/.git")
		t.Fatalf("sub/.git is left in the workspace after both commands (%d entries)", len(ents))
	}
}

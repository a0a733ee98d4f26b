package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/internal/suitelock"
	"turnstile/internal/testtimeout"
)

// TestMain lets the test binary act as the sandbox helper (and as the small
// probe programs the enforcement tests run inside the sandbox).
func TestMain(m *testing.M) {
	MaybeRunHelper()
	if len(os.Args) > 1 && os.Args[1] == testProbeArg {
		os.Exit(runTestProbe(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == testDegradedArg {
		os.Exit(runDegraded(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == testReaperArg {
		runTestReaper()
	}
	if len(os.Args) > 1 && os.Args[1] == testSignalsArg {
		runSignals()
	}
	testtimeout.Raise(25 * time.Minute)
	// Apart from the end-to-end tests whose commands run as root over "/"
	// (internal/suitelock).
	release, err := suitelock.Shared()
	if err != nil {
		panic(err)
	}
	code := m.Run()
	// The isolated temp dirs and held names of the last commands are
	// removed once Run returned; exiting before, the test binary left
	// empty turnstile-tmp-* directories in /tmp (review 188's note).
	WaitCleanup()
	release()
	if staticHelperBuild.dir != "" {
		os.RemoveAll(staticHelperBuild.dir)
	}
	os.Exit(code)
}

var (
	probeOnce sync.Once
	probed    Features
)

// machine returns the probed features (once per test binary).
func machine() Features {
	probeOnce.Do(func() { probed = Probe() })
	return probed
}

// requireKernel skips a test when the kernel cannot enforce what it needs
// (and fails it under CI=true: see missingPrerequisite).
func requireKernel(t testing.TB, userNS bool) Features {
	t.Helper()
	f := machine()
	if f.Kernel.LandlockABI < 1 || !f.Kernel.Seccomp {
		missingPrerequisite(t, "kernel cannot enforce: %s; %s", f.LandlockDetail, f.SeccompDetail)
	}
	if userNS && !f.Kernel.UserNamespaces {
		missingPrerequisite(t, "no user namespaces: %s", f.UserNamespacesDetail)
	}
	return f
}

// testExe is the test binary's canonical path; its directory is an app read
// root of the test snapshots so that probe programs can run inside.
func testExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// snapshotFor resolves a snapshot of mode over workspace ws with the given
// kernel features and extra read roots.
func snapshotFor(t testing.TB, mode domain.Mode, ws string, k domain.KernelFeatures, readRoots ...string) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile:       domain.ResolveProfile(&domain.ProfileRequest{Mode: mode}, domain.SourceComposer),
		Cwd:           ws,
		WorkspaceRoot: ws,
		AppReadRoots:  readRoots,
		Kernel:        k,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// snapshotAt is snapshotFor with the turn's cwd at cwd (inside ws).
func snapshotAt(t testing.TB, mode domain.Mode, ws, cwd string) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: mode}, domain.SourceComposer),
		Cwd:     cwd, WorkspaceRoot: ws, Kernel: machine().Kernel,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// tempWorkspace returns a canonical temporary directory.
func tempWorkspace(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clearKilledMarks(d) }) // before the removal (cleanups run last first)
	return d
}

// clearKilledMarks, at the end of a test, drops what a command over root
// killed before its check (a test's timeout, a killed server) left marked
// for the next command over it (rootlock.go), the root being removed next:
// a later command over a root enclosing it ("/", /tmp, /var/tmp: several
// tests run one), finding it gone, checks all of the enclosing root from
// the killed start, as a server must (catchUpBelow), and set aside what
// other programs had made meanwhile: in CI, a test binary being run and a
// git work tree's gitdir file elsewhere on the machine.
func clearKilledMarks(root string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if l, err := lockRoots(ctx, []string{root}); err == nil && l != nil {
		l.Checked()
		l.Release()
	}
}

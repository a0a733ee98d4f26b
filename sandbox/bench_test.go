package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// The spawn benchmarks measure /bin/true: plain exec.Command, Run without a
// sandbox (full_access), Run through a helper with Landlock and seccomp
// (supervised) and with everything (auto_accept_edits over a workspace with
// .git: user + mount namespace, read-only carve-out, Landlock, seccomp),
// each through the lean helper (cmd/turnstile-sandbox) and through the full
// turnstile binary re-executed (what `go run ./cmd/turnstile` uses), and
// bubblewrap with a comparable policy when it is installed. The CLI
// benchmark runs whole processes: `turnstile sandbox` with and without the
// lean helper next to it, against bwrap. Each variant reports its median in
// ms (p50-ms); see docs/benchmarks.md for the commands and figures.

// BenchmarkSpawn runs each variant on its own.
func BenchmarkSpawn(b *testing.B) {
	for _, c := range spawnCases(b) {
		b.Run(c.name, func(b *testing.B) {
			if err := c.fn(); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				b.StopTimer()
				WaitCleanup() // released after Run returned: not in the next run's time
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(median(ds), "p50-ms")
		})
	}
}

// BenchmarkSpawnInterleaved runs the same variants in rotation, one spawn
// each per iteration, and reports each variant's median: on a shared,
// loaded machine every variant then sees the same load. It also reports the
// helper's overhead (Run through the lean helper with everything enforced,
// minus Run without a sandbox) against bwrap's (bwrap minus exec.Command).
func BenchmarkSpawnInterleaved(b *testing.B) {
	reportInterleaved(b, spawnCases(b), func(p50 map[string]float64) {
		if bw, ok := p50["bwrap"]; ok {
			bwOver := bw - p50["exec.Command"]
			b.ReportMetric(bwOver, "bwrap-overhead-ms")
			for _, h := range []string{"lean", "fullbinary"} {
				over := p50["Run/"+h+"/namespace_carveout"] - p50["Run/unsandboxed"]
				b.ReportMetric(over, h+"-helper-overhead-ms")
				b.ReportMetric(over/bwOver, h+"-helper-overhead/bwrap-overhead")
			}
		}
	})
}

// BenchmarkCLI runs whole processes in rotation: `turnstile sandbox --mode
// auto_accept_edits` with the lean helper next to the binary (the early
// entry runs the command line in it), the same with the early entry
// switched off, and without the helper (the binary runs it and is its own
// helper), bwrap with a comparable policy,
// and `turnstile version` (the binary's own start-up), all running
// /bin/true; it reports each median and turnstile's wall time over bwrap's,
// and the turnstile commands' median CPU time (user + system of the process
// and the children it waited for: on a loaded machine the steadier figure
// for comparing turnstile with itself; bwrap's is not comparable, since its
// rusage leaves out the namespace work the kernel does asynchronously).
func BenchmarkCLI(b *testing.B) {
	requireKernel(b, false)
	ws := benchWorkspace(b)
	withHelper := b.TempDir()
	buildPrograms(b, withHelper, "./cmd/turnstile", "./cmd/turnstile-sandbox")
	alone := b.TempDir()
	copyFile(b, filepath.Join(withHelper, "turnstile"), filepath.Join(alone, "turnstile"))
	// The same two programs, the early entry switched off: `turnstile
	// sandbox` then runs in the turnstile binary, after its packages'
	// initialisation, as before the entry existed.
	noEarly := b.TempDir()
	buildPrograms(b, noEarly, "-ldflags=-X early.invalid/entry.Disabled=1", "./cmd/turnstile", "./cmd/turnstile-sandbox")
	cpu := map[string][]time.Duration{}
	timed := func(name string, args ...string) spawnCase {
		return spawnCase{name, func() error {
			c := exec.Command(args[0], args[1:]...)
			err := c.Run()
			if c.ProcessState != nil {
				cpu[name] = append(cpu[name], c.ProcessState.UserTime()+c.ProcessState.SystemTime())
			}
			return err
		}}
	}
	sandboxArgs := func(dir string) []string {
		return []string{filepath.Join(dir, "turnstile"), "sandbox", "--mode", "auto_accept_edits", "--root", ws, "--", "/bin/true"}
	}
	cases := []spawnCase{
		timed("turnstile_version", filepath.Join(withHelper, "turnstile"), "version"),
		timed("turnstile_sandbox/lean_helper", sandboxArgs(withHelper)...),
		timed("turnstile_sandbox/no_early_entry", sandboxArgs(noEarly)...),
		timed("turnstile_sandbox/binary_alone", sandboxArgs(alone)...),
	}
	bw, ok := bwrapCase(ws)
	if !ok {
		missingPrerequisite(b, "bwrap is not installed (apt-get install -y bubblewrap)")
	}
	cases = append(cases, bw)
	reportInterleaved(b, cases, func(p50 map[string]float64) {
		b.ReportMetric(p50["turnstile_sandbox/lean_helper"]/p50["bwrap"], "lean/bwrap")
		b.ReportMetric(p50["turnstile_sandbox/no_early_entry"]/p50["bwrap"], "no-early/bwrap")
		b.ReportMetric(p50["turnstile_sandbox/binary_alone"]/p50["bwrap"], "alone/bwrap")
		for name, ds := range cpu {
			b.ReportMetric(median(ds), strings.ReplaceAll(name, "/", ".")+"-cpu-ms")
		}
	})
}

// reportInterleaved runs cases in rotation b.N times and reports each
// median; extra may report derived figures from the medians.
func reportInterleaved(b *testing.B, cases []spawnCase, extra func(p50 map[string]float64)) {
	for _, c := range cases { // warm up, and fail early
		if err := c.fn(); err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
	}
	ds := make([][]time.Duration, len(cases))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range cases {
			start := time.Now()
			if err := c.fn(); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			ds[j] = append(ds[j], time.Since(start))
			// What Run releases after returning is not timed, and not
			// left to run during the next case's timing either.
			WaitCleanup()
		}
	}
	b.StopTimer()
	p50 := map[string]float64{}
	for j, c := range cases {
		p50[c.name] = median(ds[j])
		b.ReportMetric(p50[c.name], strings.ReplaceAll(c.name, "/", ".")+"-p50-ms")
	}
	extra(p50)
}

func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

type spawnCase struct {
	name string
	fn   func() error
}

// benchWorkspace is a workspace with .git (a carve-out) and src.
func benchWorkspace(b *testing.B) string {
	ws := tempWorkspace(b)
	for _, d := range []string{ws + "/.git/hooks", ws + "/src"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// buildPrograms builds the packages (relative to the module root) into dir,
// static as the README's first command builds them (CGO_ENABLED=0: a
// dynamically linked program starts about a millisecond later).
func buildPrograms(b *testing.B, dir string, pkgs ...string) {
	cmd := exec.Command("go", append([]string{"build", "-o", dir + "/"}, pkgs...)...)
	cmd.Dir = moduleRoot(b)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
}

func copyFile(b *testing.B, src, dst string) {
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		b.Fatal(err)
	}
}

// bwrapCase is bubblewrap running /bin/true with a policy comparable to
// auto_accept_edits: read-only /, the workspace writable, its .git
// read-only, private /tmp, /proc and /dev, no network, its own PID and IPC
// namespaces and session, no capabilities. (It does less than the helper:
// no Landlock, seccomp, idmapped root, protected-path pins or socket
// masking.)
func bwrapCase(ws string) (spawnCase, bool) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return spawnCase{}, false
	}
	args := bwrapArgs(ws)
	return spawnCase{"bwrap", func() error { return exec.Command(bwrap, args...).Run() }}, true
}

// bwrapArgs are bwrapCase's arguments.
func bwrapArgs(ws string) []string {
	return []string{"--ro-bind", "/", "/", "--bind", ws, ws, "--ro-bind", ws + "/.git", ws + "/.git",
		"--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent",
		"--new-session", "--cap-drop", "ALL", "/bin/true"}
}

// spawnCases lists the spawn variants from this process.
func spawnCases(b *testing.B) []spawnCase {
	f := requireKernel(b, false)
	ws := benchWorkspace(b)
	bin := b.TempDir()
	buildPrograms(b, bin, "./cmd/turnstile", "./cmd/turnstile-sandbox")
	lean := locateHelper(filepath.Join(bin, HelperProgram))
	useHelper(b, lean)
	if h := currentHelper(); !h.lean {
		b.Fatalf("the lean helper was refused: %s", h.note)
	}
	full := &helperProg{path: filepath.Join(bin, "turnstile"), argv0: "turnstile", file: filepath.Join(bin, "turnstile"), verified: true, fd: -1}
	plan := func(mode domain.Mode) *Plan {
		s := snapshotFor(b, mode, ws, f.Kernel)
		p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/true"}}, os.Environ())
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	runPlan := func(h *helperProg, p *Plan) func() error {
		return func() error {
			helperMu.Lock()
			helperCur = h
			helperMu.Unlock()
			r, err := Run(context.Background(), p)
			if err == nil && r.ExitCode != 0 {
				b.Fatalf("exit %d: %s", r.ExitCode, r.Stderr)
			}
			return err
		}
	}
	// full_access with a data directory to hide: its own namespaces
	// (fullaccess.go); without one it runs unsandboxed (the row before).
	isolated := snapshotFor(b, domain.ModeFullAccess, ws, f.Kernel)
	domain.AddSensitivePaths(isolated, []string{b.TempDir()})
	faPlan, err := PlanSpawn(isolated, SpawnRequest{Argv: []string{"/bin/true"}}, os.Environ())
	if err != nil || !faPlan.Sandbox.FullAccess {
		b.Fatalf("full_access plan: %v %+v", err, faPlan)
	}
	cases := []spawnCase{
		{"exec.Command", func() error { return exec.Command("/bin/true").Run() }},
		{"Run/unsandboxed", runPlan(lean, plan(domain.ModeFullAccess))},
		{"Run/lean/full_access_isolated", runPlan(lean, faPlan)},
	}
	for _, h := range []struct {
		name string
		prog *helperProg
	}{{"lean", lean}, {"fullbinary", full}} {
		cases = append(cases,
			spawnCase{"Run/" + h.name + "/landlock_seccomp", runPlan(h.prog, plan(domain.ModeSupervised))},
			spawnCase{"Run/" + h.name + "/namespace_carveout", runPlan(h.prog, plan(domain.ModeAutoAcceptEdits))})
	}
	// The same without the command's cgroup (killgroup.go): what making,
	// entering and removing it costs.
	carveout := runPlan(lean, plan(domain.ModeAutoAcceptEdits))
	cases = append(cases, spawnCase{"Run/lean/namespace_carveout/no_kill_group", func() error {
		killGroupsEnabled = false
		defer func() { killGroupsEnabled = true }()
		return carveout()
	}})
	if bw, ok := bwrapCase(ws); ok {
		cases = append(cases, bw)
	}
	b.Cleanup(func() {
		helperMu.Lock()
		helperCur = lean
		helperMu.Unlock()
	})
	return cases
}

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// BenchmarkSpawn measures the spawn cost of /bin/true: plain exec.Command,
// Run without a sandbox (full_access), Run through the helper with Landlock
// and seccomp (supervised), with the user + mount namespace carve-out
// (auto_accept_edits over a workspace with .git), with the sibling-grant
// fallback instead, and bubblewrap with a comparable policy when installed.
// Each reports the median in ms (p50-ms) besides the mean.
func BenchmarkSpawn(b *testing.B) {
	for _, c := range spawnCases(b) {
		b.Run(c.name, func(b *testing.B) {
			if err := c.fn(); err != nil {
				b.Skipf("%s: %v", c.name, err)
			}
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
			}
			b.StopTimer()
			b.ReportMetric(median(ds), "p50-ms")
		})
	}
}

// BenchmarkSpawnInterleaved runs the same variants in rotation, one spawn
// each per iteration, and reports each variant's median: on a shared,
// loaded machine every variant then sees the same load.
func BenchmarkSpawnInterleaved(b *testing.B) {
	cases := spawnCases(b)
	ds := make([][]time.Duration, len(cases))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range cases {
			start := time.Now()
			if err := c.fn(); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			ds[j] = append(ds[j], time.Since(start))
		}
	}
	b.StopTimer()
	for j, c := range cases {
		b.ReportMetric(median(ds[j]), strings.ReplaceAll(c.name, "/", ".")+"-p50-ms")
	}
}

func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

type spawnCase struct {
	name string
	fn   func() error
}

// spawnCases lists the spawn variants this machine supports.
func spawnCases(b *testing.B) []spawnCase {
	f := requireKernel(b, false)
	ws := tempWorkspace(b)
	os.MkdirAll(ws+"/.git/hooks", 0o755)
	os.MkdirAll(ws+"/src", 0o755)
	plan := func(mode domain.Mode, ns bool) *Plan {
		s := snapshotFor(b, mode, ws, f.Kernel)
		p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/true"}}, os.Environ())
		if err != nil {
			b.Fatal(err)
		}
		p.Sandbox.UserNamespaces = ns
		return p
	}
	runPlan := func(p *Plan) func() error {
		return func() error {
			r, err := Run(context.Background(), p)
			if err == nil && r.ExitCode != 0 {
				b.Fatalf("exit %d: %s", r.ExitCode, r.Stderr)
			}
			return err
		}
	}
	cases := []spawnCase{
		{"exec.Command", func() error { return exec.Command("/bin/true").Run() }},
		{"Run/unsandboxed", runPlan(plan(domain.ModeFullAccess, false))},
		{"Run/helper_landlock_seccomp", runPlan(plan(domain.ModeSupervised, false))},
	}
	if f.Kernel.UserNamespaces {
		cases = append(cases, spawnCase{"Run/helper_namespace_carveout", runPlan(plan(domain.ModeAutoAcceptEdits, true))})
	}
	cases = append(cases, spawnCase{"Run/helper_sibling_fallback", runPlan(plan(domain.ModeAutoAcceptEdits, false))})
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		args := []string{"--ro-bind", "/", "/", "--bind", ws, ws, "--ro-bind", ws + "/.git", ws + "/.git",
			"--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--unshare-net", "--unshare-pid", "--die-with-parent",
			"--new-session", "--cap-drop", "ALL", "/bin/true"}
		cases = append(cases, spawnCase{"bwrap", func() error { return exec.Command(bwrap, args...).Run() }})
	}
	return cases
}

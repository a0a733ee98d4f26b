package sandbox

import (
	"context"
	"os"
	"os/exec"
	"slices"
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
	cases := []struct {
		name string
		fn   func() error
	}{
		{"exec.Command", func() error { return exec.Command("/bin/true").Run() }},
		{"Run/unsandboxed", runPlan(plan(domain.ModeFullAccess, false))},
		{"Run/helper_landlock_seccomp", runPlan(plan(domain.ModeSupervised, false))},
	}
	if f.Kernel.UserNamespaces {
		cases = append(cases, struct {
			name string
			fn   func() error
		}{"Run/helper_namespace_carveout", runPlan(plan(domain.ModeAutoAcceptEdits, true))})
	}
	cases = append(cases, struct {
		name string
		fn   func() error
	}{"Run/helper_sibling_fallback", runPlan(plan(domain.ModeAutoAcceptEdits, false))})
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		args := []string{"--ro-bind", "/", "/", "--bind", ws, ws, "--ro-bind", ws + "/.git", ws + "/.git",
			"--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--unshare-net", "--unshare-pid", "--die-with-parent",
			"--new-session", "--cap-drop", "ALL", "/bin/true"}
		cases = append(cases, struct {
			name string
			fn   func() error
		}{"bwrap", func() error { return exec.Command(bwrap, args...).Run() }})
	}
	for _, c := range cases {
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
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// BenchmarkSpawnSpare runs Run/lean/namespace_carveout (auto_accept_edits,
// everything enforced) without and with a spare helper (spare.go),
// alternately, and reports each one's median: "idle" with the machine idle
// for a pause before each spawn (not timed: a server between an agent's
// commands, where the spare's start has run), "busy" back to back (the
// spare's start then runs beside the next command). It reports the
// medians only: a spare moves the helper's start, it does not remove it
// (the with-spare half runs one untimed command before each timed one, to
// leave the spare). With the machine idle it also times, in the same
// rotation and after the same pause, /bin/true unsandboxed through Run
// and through exec.Command, and bwrap (when installed: bwrapCase), and
// reports the spare's overhead (its median less Run's unsandboxed one)
// against bwrap's (less exec.Command's), as BenchmarkSpawnInterleaved does
// for helpers started for their command.
func BenchmarkSpawnSpare(b *testing.B) {
	f := requireKernel(b, false)
	ws := benchWorkspace(b)
	bin := b.TempDir()
	buildPrograms(b, bin, "./cmd/turnstile", "./cmd/turnstile-sandbox")
	useHelper(b, locateHelper(bin+"/"+HelperProgram))
	if h := currentHelper(); !h.lean {
		b.Fatalf("the lean helper was refused: %s", h.note)
	}
	s := snapshotFor(b, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/true"}}, os.Environ())
	if err != nil {
		b.Fatal(err)
	}
	unsandboxed, err := PlanSpawn(snapshotFor(b, domain.ModeFullAccess, ws, f.Kernel), SpawnRequest{Argv: []string{"/bin/true"}}, os.Environ())
	if err != nil || unsandboxed.Sandboxed {
		b.Fatalf("an unsandboxed plan: %v %+v", err, unsandboxed)
	}
	others := []spawnCase{
		{"exec.Command", func() error { return exec.Command("/bin/true").Run() }},
		{"Run/unsandboxed", func() error { _, err := Run(context.Background(), unsandboxed); return err }},
	}
	if bw, ok := bwrapCase(ws); ok {
		others = append(others, bw)
	}
	defer KeepSpareHelper(false)
	for _, pause := range []struct {
		name string
		d    time.Duration
	}{{"idle", 50 * time.Millisecond}, {"busy", 0}} {
		b.Run(pause.name, func(b *testing.B) {
			ds := map[bool][]time.Duration{}
			run := func() time.Duration {
				start := time.Now()
				r, err := Run(context.Background(), p)
				d := time.Since(start)
				if err != nil || r.ExitCode != 0 {
					b.Fatalf("%+v %v", r, err)
				}
				WaitCleanup()
				return d
			}
			other := map[string][]time.Duration{}
			for i := 0; i < b.N+1; i++ {
				for _, on := range []bool{false, true} {
					KeepSpareHelper(on)
					if on {
						run() // not timed: it leaves the spare
						spare.wg.Wait()
					}
					time.Sleep(pause.d)
					if d := run(); i > 0 { // the first round warms up
						ds[on] = append(ds[on], d)
					}
				}
				if pause.d == 0 {
					continue
				}
				KeepSpareHelper(false)
				for _, c := range others {
					time.Sleep(pause.d)
					start := time.Now()
					if err := c.fn(); err != nil {
						b.Fatalf("%s: %v", c.name, err)
					}
					if d := time.Since(start); i > 0 {
						other[c.name] = append(other[c.name], d)
					}
				}
			}
			b.ReportMetric(median(ds[false]), "no-spare-p50-ms")
			b.ReportMetric(median(ds[true]), "spare-p50-ms")
			if bw := other["bwrap"]; len(bw) > 0 {
				spareOver := median(ds[true]) - median(other["Run/unsandboxed"])
				bwOver := median(bw) - median(other["exec.Command"])
				b.ReportMetric(median(bw), "bwrap-p50-ms")
				b.ReportMetric(spareOver, "spare-overhead-ms")
				b.ReportMetric(bwOver, "bwrap-overhead-ms")
				b.ReportMetric(spareOver/bwOver, "spare-overhead/bwrap-overhead")
				b.ReportMetric((median(ds[false])-median(other["Run/unsandboxed"]))/bwOver, "no-spare-overhead/bwrap-overhead")
			}
		})
	}
}

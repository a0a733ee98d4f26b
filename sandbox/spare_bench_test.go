package sandbox

import (
	"context"
	"os"
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
// leave the spare).
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
			}
			b.ReportMetric(median(ds[false]), "no-spare-p50-ms")
			b.ReportMetric(median(ds[true]), "spare-p50-ms")
		})
	}
}

package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// chainEnvrc is a shell loop that writes sub/.envrc: n functions, each
// calling the next, the last sourcing what it is given; reverse writes
// them last first.
func chainEnvrc(n int, reverse bool) string {
	order := "i=0; while [ $i -lt N ]; do"
	if reverse {
		order = "i=$((N-1)); while [ $i -ge 0 ]; do"
	}
	step := "i=$((i+1))"
	if reverse {
		step = "i=$((i-1))"
	}
	s := "mkdir -p sub; { echo 'fN() { source \"$1\"; }'; " + order + " echo \"f$i() { f$((i+1)) \\\"\\$1\\\"; }\"; " + step + "; done; echo 'f0 x.sh'; } > sub/.envrc; wc -c sub/.envrc; echo written"
	if !reverse {
		// the runner defined last, the calls in the order of the text
		s = "mkdir -p sub; { " + order + " echo \"f$i() { f$((i+1)) \\\"\\$1\\\"; }\"; " + step + "; done; echo 'fN() { source \"$1\"; }'; echo 'f0 x.sh'; } > sub/.envrc; wc -c sub/.envrc; echo written"
	}
	return strings.ReplaceAll(s, "N", "1500")
}

// TestAttack161_EnvrcRunnerFixedPointCost (review 161, medium: denial of
// service of the server). Review 159 made funcRunners find runners "until
// none more": each pass walks the whole script and, for every function
// not yet a runner, its body against the runner list. A chain of
// functions each calling the one defined below it (f0 calls f1 … f1499
// calls f1500, which sources) adds one runner per pass: 1,500 passes of
// 1,500 functions, cubic with the Contains over the list. The .envrc a
// command writes in a subdirectory is read at every view build ("the
// agent's to fill", maxLauncherFileSize 256 KiB each, 16 MiB in all):
// measured here, envrcBareRefs of 4,000 such functions (94 KB) took 79 s,
// of 2,000 (46 KB) 8.7 s, and 256 KiB of them would take tens of minutes
// of the server's CPU for every command of the turn.
//
// Control: the same 1,500 functions written in the other order (the
// runner first, each caller below its callee: one pass finds them all)
// runs the next command too. (The walk cache is cleared as after its 2 s
// TTL, so the next command reads sub/.envrc.) The work is counted, not
// timed, in TestAttack161_RunnerChainWorkIsLinear.
func TestAttack161_EnvrcRunnerFixedPointCost(t *testing.T) {
	for _, c := range []struct {
		reverse bool
		what    string
	}{{true, "control: the runner first"}, {false, "a chain whose runner is defined last"}} {
		f := newPlantFixture(t)
		r := sh(t, f.s, chainEnvrc(1500, c.reverse))
		if !strings.Contains(string(r.Stdout), "written") {
			t.Fatalf("premise: the command did not write sub/.envrc: %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
		}
		walkCache.mu.Lock()
		walkCache.m = map[string]walkResult{} // as after walkTTL (2 s)
		walkCache.mu.Unlock()
		start := time.Now()
		r = sh(t, f.s, "echo next")
		took := time.Since(start)
		if !strings.Contains(string(r.Stdout), "next") {
			t.Fatalf("premise: the next command did not run: %d %s", r.ExitCode, r.Stderr)
		}
		t.Logf("%s: the next command took %v", c.what, took)
	}
}

// chainScript is n functions, each calling the next, the runner (it
// sources what it is given) defined last.
func chainScript(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "f%d() { f%d \"$1\"; }\n", i, i+1)
	}
	fmt.Fprintf(&b, "f%d() { source \"$1\"; }\nf0 x.sh\n", n)
	return b.String()
}

// TestAttack161_RunnerChainWorkIsLinear is review 161's attack counted,
// not timed (a timed bound is not kept under the race detector): the
// allocations funcRunners makes for a chain of functions whose runner is
// defined last grow with its length, not its square; repeated passes
// over the script, one runner found each, made them grow with the
// square. Control: every function of the chain is found a runner.
func TestAttack161_RunnerChainWorkIsLinear(t *testing.T) {
	allocs := func(n int) float64 {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(chainScript(n)), ".envrc")
		if err != nil {
			t.Fatal(err)
		}
		if got := funcRunners(f, nil); len(got) != n+1 {
			t.Fatalf("control: %d of the chain's %d functions found runners", len(got), n+1)
		}
		return testing.AllocsPerRun(3, func() { funcRunners(f, nil) })
	}
	small, large := allocs(400), allocs(1600)
	t.Logf("funcRunners' allocations: %.0f for 400 chained functions, %.0f for 1,600", small, large)
	if large > 6*small {
		t.Errorf("a chain four times as long made funcRunners allocate %.1f times as much (%.0f, %.0f): its work grows faster than the chain", large/small, small, large)
	}
}

package sandbox

import (
	"strings"
	"testing"
	"time"
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
// cost the next command next to nothing. (The walk cache is cleared as
// after its 2 s TTL, so the next command reads sub/.envrc.)
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
		if took > 3*time.Second {
			if c.reverse {
				t.Fatalf("%s: the next command took %v", c.what, took)
			}
			t.Errorf("the next command, after the agent's command wrote a sub/.envrc of 1,500 chained functions (about 33 KB), took %v of the server's time reading it (funcRunners' passes)", took)
		}
	}
}

package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// cdFanoutEnvrc is a shell command that writes sub/.envrc: sixteen
// "cd aN" lines and a "cd -" when cds is set, then names lines of
// "PATH_add nI ..." (ten names a line).
func cdFanoutEnvrc(names int, cds bool) string {
	first := ""
	if cds {
		first = "for d in a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 b0 b1 b2 b3 b4 b5; do echo \"cd $d\"; done; echo 'cd -'; "
	}
	return fmt.Sprintf(`mkdir -p sub; { %s i=0; while [ $i -lt %d ]; do echo "PATH_add n$i n$((i+1)) n$((i+2)) n$((i+3)) n$((i+4)) n$((i+5)) n$((i+6)) n$((i+7)) n$((i+8)) n$((i+9))"; i=$((i+10)); done; } > sub/.envrc; wc -c sub/.envrc; echo written`, first, names)
}

// TestAttack168_EnvrcCdFanoutCost (review 168, medium: denial of service
// of the server). Since fix162 a .envrc's names are read from every
// directory a cd may have left the script in (launcherparse.go envrcRefs'
// fix, envrcbare.go's at): envrcDirs.cd adds the target of each cd from
// every directory already noted, up to maxEnvrcDirs (16), then the top's
// mark, which launcherRef watches at every directory from the .envrc's up
// to /. Sixteen cd lines and a "cd -" thus make every later name of the
// script 16 names plus one watched at each directory above (each a
// launcherPath: canonicalPath, dotDotWay, a missing ref), and the bare
// reader does it again. A nested .envrc is read by every view build (the
// agent's command writes it: direnv would not run it, the walk reads it
// anyway), at most 256 KiB, 16 MiB a view: measured here, a 40 KB sub/.envrc
// of 4,000 names costs the view 2.4 s without the cd lines, 7.3 s after a
// "cd -" alone, and 107 s after the 17 cd lines; every later decision and
// command of the turn (the walk cache lives 2 s) pays it, and the 16 MiB
// budget holds 400 such files.
//
// Counted, not timed (a timed bound failed under the race detector): the
// names the view build takes up (fsView.launcherRefWork) stay within
// twice the lookups a view may spend; each reaching its lookups, they
// made 48,000 with the bound and no stop after it, more without it.
//
// Control: the same names without the cd lines are each taken up, and the
// command runs.
func TestAttack168_EnvrcCdFanoutCost(t *testing.T) {
	const names = 2000
	for _, c := range []struct {
		cds  bool
		what string
	}{{false, "control: no cd lines"}, {true, "after 16 cd lines and a cd -"}} {
		f := newPlantFixture(t)
		r := sh(t, f.s, cdFanoutEnvrc(names, c.cds))
		if !strings.Contains(string(r.Stdout), "written") {
			t.Fatalf("premise: the command did not write sub/.envrc: %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
		}
		walkCache.mu.Lock()
		walkCache.m = map[string]walkResult{} // as after walkTTL (2 s)
		walkCache.mu.Unlock()
		start := time.Now()
		r, err := run(t, f.s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo next"}}, nil)
		took := time.Since(start)
		switch {
		case err != nil && c.cds:
			// Refused past the view's bounds: the fix at work, as
			// long as it stops reading there (counted below).
			t.Logf("refused: %v", err)
		case err != nil || !strings.Contains(string(r.Stdout), "next"):
			t.Fatalf("premise: the next command did not run: %v %+v", err, r)
		}
		v := cachedFSView(&f.s.Sandbox.Filesystem)
		t.Logf("%s: the next command took %v; its view took up %d names launcher files gave (overflow %q)", c.what, took, v.launcherRefWork, v.overflow)
		if !c.cds {
			if v.overflow != "" || v.launcherRefWork < names {
				t.Fatalf("%s: the view took up %d of the %d names (overflow %q): the count does not count them", c.what, v.launcherRefWork, names, v.overflow)
			}
			continue
		}
		if v.launcherRefWork > 2*maxLauncherPaths {
			t.Errorf("the next command, after the agent's command wrote a sub/.envrc of %d names (about 20 KB) behind 16 cd lines and a cd -, "+
				"took up %d names in its view build, past twice the %d lookups a view may spend (envrcDirs: every name read from 16 directories "+
				"and watched at each directory above, and read on past the bound)", names, v.launcherRefWork, maxLauncherPaths)
		}
	}
}

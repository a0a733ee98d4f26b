package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// envrcPatternCase writes files into a new plant fixture and checks that
// a file tool's write of each name in attacks (new files a pattern the
// .envrc sources matches) is refused and that a command's new one is set
// aside.
func envrcPatternCase(t *testing.T, files map[string]string, attacks []string, how string) {
	t.Helper()
	f := newPlantFixture(t)
	mkfiles(t, f.ws, files)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, a new match of a pattern .envrc sources (%s), was allowed", n, how)
		}
	}
	script := "true"
	for _, n := range attacks {
		script += "; echo 'touch /tmp/pwned' > " + n
	}
	r := sh(t, s, script+"; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	for _, n := range attacks {
		if _, err := os.Stat(f.ws + "/" + n); err == nil {
			t.Errorf("%s, a new match of a pattern .envrc sources (%s), made by the command, stayed after the check: the person's next direnv sources it", n, how)
		}
	}
}

// TestAttack161_EnvrcNestedExtglob (review 161, high: as above).
// shellGlob reads an extglob group up to the first ")", so a nested group
// (`!(_*|@(skip)).sh`, every script but the private ones and skip.sh:
// bash's extglob nests, verified) becomes "*).sh", which matches no
// script: a new new.sh made by a command is not set aside, and bash's
// loop in .envrc sources it.
//
// Control: the flat group `!(_*).sh` sets aside a new one.
func TestAttack161_EnvrcNestedExtglob(t *testing.T) {
	envrcPatternCase(t, map[string]string{
		".envrc": "shopt -s extglob\nfor f in !(_*).sh; do source \"$f\"; done\n",
	}, []string{"new.sh"}, "control: a flat extglob group")
	envrcPatternCase(t, map[string]string{
		".envrc": "shopt -s extglob\nfor f in !(_*|@(skip)).sh; do source \"$f\"; done\n",
	}, []string{"new.sh"}, "a nested extglob group")
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack159_EnvrcExtglobLoop (review 159, high: host code execution
// when the person's direnv next loads .envrc). A .envrc that turns on
// bash's extglob (`shopt -s extglob`, direnv sources the file command by
// command, so it holds for the lines after) and loops over
// `!(_*).sh` (every script but the private ones) or `@(local|site).sh`
// sources what those match. The launcher discovery takes a word as a
// pattern only where it holds "*?[" (launcherRef) and matches it with
// filepath.Match after shellGlob, which knows no extglob: `!(_*).sh`
// becomes a pattern of names starting with "!(" (nothing matches), and
// `@(local|site).sh`, without "*?[", a literal name nobody makes. So
// env.sh, which bash sources, stays writable to the file tool and to
// commands, and a new new.sh / local.sh made by a command stays: the
// person's next `cd` into the project sources them.
//
// Control: a plain loop over *.env.sh in the same .envrc keeps its match
// read-only and sets aside a new one.
func TestAttack159_EnvrcExtglobLoop(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc": "for f in *.env.sh; do source \"$f\"; done\n" +
			"shopt -s extglob\n" +
			"for f in !(_*).sh; do source \"$f\"; done\n" +
			"for f in @(local|site).sh; do source \"$f\"; done\n",
		"a.env.sh":    "export A=1\n",
		"env.sh":      "export B=1\n",
		"_private.sh": "echo private\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	for _, n := range []string{"a.env.sh", "b.env.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Fatalf("control: a write of %s, a match of the .envrc loop's *.env.sh, was allowed", n)
		}
	}
	for _, n := range []string{"env.sh", "new.sh", "local.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which bash's extglob loop in .envrc sources, was allowed", n)
		}
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> a.env.sh; echo 'touch /tmp/pwned' > b.env.sh; "+
		"echo 'touch /tmp/pwned' >> env.sh; echo 'touch /tmp/pwned' > new.sh; echo 'touch /tmp/pwned' > local.sh; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/a.env.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: a.env.sh, a match of *.env.sh, was rewritten by the command")
	}
	if exists(f.ws + "/b.env.sh") {
		t.Fatalf("control: b.env.sh, a new match of *.env.sh, stayed after the check (quarantined: %+v)", r.Quarantined)
	}
	if b, _ := os.ReadFile(f.ws + "/env.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("env.sh, which the .envrc's extglob loop !(_*).sh sources, was rewritten by the command: %q", b)
	}
	for _, n := range []string{"new.sh", "local.sh"} {
		if exists(f.ws + "/" + n) {
			t.Errorf("%s, a new match of the .envrc's extglob loop, made by the command, stayed after the check: the person's next direnv sources it", n)
		}
	}
}

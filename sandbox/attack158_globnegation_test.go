package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_LauncherGlobNegation (review 158, high: host code
// execution when the person's direnv next loads .envrc, or mise enters the
// project). A launcher file's pattern is matched with Go's filepath.Glob
// and path.Match (launcherRef: the matches kept read-only;
// launcherGlob.newMatch: a new one refused to a write decision and set
// aside after a command). Go reads a bracket "[!_]" as the set of "!" and
// "_"; bash (a .envrc loop `for f in [!_]*.sh`), POSIX fnmatch and the
// Rust glob crate mise uses read "!" first in a bracket as negation: "any
// one character but _" (the usual way to skip _private.sh). So none of
// the person's scripts that bash sources is kept read-only (the command
// appends to env.sh), and a new one (new.sh) is neither refused nor set
// aside: the person's next `cd` into the project sources both.
//
// Control: a pattern without a negated bracket in the same .envrc
// (*.env.sh) keeps its existing match read-only and sets aside a new one.
func TestAttack158_LauncherGlobNegation(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":   "for f in *.env.sh; do source \"$f\"; done\nfor f in [!_]*.sh; do source \"$f\"; done\n",
		"a.env.sh": "export A=1\n",
		"env.sh":   "export B=1\n",
		"_skip.sh": "echo private\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	for _, n := range []string{"a.env.sh", "b.env.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Fatalf("control: a write of %s, a match of the .envrc loop's *.env.sh, was allowed", n)
		}
	}
	for _, n := range []string{"env.sh", "new.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which bash's [!_]*.sh matches (the .envrc loop sources it), was allowed", n)
		}
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> a.env.sh; echo 'touch /tmp/pwned' > b.env.sh; "+
		"echo 'touch /tmp/pwned' >> env.sh; echo 'touch /tmp/pwned' > new.sh; echo done")
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
		t.Errorf("env.sh, which the .envrc loop's [!_]*.sh sources, was rewritten by the command: %q", b)
	}
	if exists(f.ws + "/new.sh") {
		t.Errorf("new.sh, a new match of the .envrc loop's [!_]*.sh, made by the command, stayed after the check: the person's next direnv sources it")
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack159_LauncherGlobLiteralDash (review 159, high: host code
// execution when the person's direnv next loads .envrc). shellGlob
// (launchershglob.go) rewrites a launcher pattern's bracket for Go's
// filepath.Match / path.Match but copies a "-" first or last in the set
// as it is. bash (a .envrc loop `for f in [a-z0-9_-]*.sh`), POSIX fnmatch
// and the Rust glob crate mise uses read such a "-" as a literal member;
// Go reads it as an unfinished range and returns ErrBadPattern, which
// discovery.glob, launcherGlob.newMatch and setAsideLauncherMatches all
// take as "no match". So none of the person's scripts the loop sources is
// kept read-only (the command appends to env.sh), and a new one (new.sh)
// is neither refused to a file tool nor set aside after a command: the
// person's next `cd` into the project sources both.
//
// Control: the same set without the trailing "-" ([a-z0-9_]*.env.sh) in
// the same .envrc keeps its match read-only and sets aside a new one.
func TestAttack159_LauncherGlobLiteralDash(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":   "for f in [a-z0-9_]*.env.sh; do source \"$f\"; done\nfor f in [a-z0-9_-]*.sh; do source \"$f\"; done\n",
		"a.env.sh": "export A=1\n",
		"env.sh":   "export B=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	for _, n := range []string{"a.env.sh", "b.env.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Fatalf("control: a write of %s, a match of the .envrc loop's [a-z0-9_]*.env.sh, was allowed", n)
		}
	}
	for _, n := range []string{"env.sh", "new.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which bash's [a-z0-9_-]*.sh matches (the .envrc loop sources it), was allowed", n)
		}
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> a.env.sh; echo 'touch /tmp/pwned' > b.env.sh; "+
		"echo 'touch /tmp/pwned' >> env.sh; echo 'touch /tmp/pwned' > new.sh; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/a.env.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: a.env.sh, a match of [a-z0-9_]*.env.sh, was rewritten by the command")
	}
	if exists(f.ws + "/b.env.sh") {
		t.Fatalf("control: b.env.sh, a new match of [a-z0-9_]*.env.sh, stayed after the check (quarantined: %+v)", r.Quarantined)
	}
	if b, _ := os.ReadFile(f.ws + "/env.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("env.sh, which the .envrc loop's [a-z0-9_-]*.sh sources, was rewritten by the command: %q", b)
	}
	if exists(f.ws + "/new.sh") {
		t.Errorf("new.sh, a new match of the .envrc loop's [a-z0-9_-]*.sh, made by the command, stayed after the check: the person's next direnv sources it")
	}
}

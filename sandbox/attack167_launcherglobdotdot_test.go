package sandbox

import (
	"fmt"
	"testing"

	"turnstile/domain"
)

// TestAttack167LauncherGlobDotDot (review 167): a launcher pattern that
// names the directory above (a nested .envrc's `for f in ../scripts/*.sh;
// do source "$f"; done`, or, since review 166's cd tracking in
// launcherparse.go envrcRefs, the everyday `cd ..` followed by `for f in
// scripts/*.sh`, which envrcRefs now rewrites to ../scripts/*.sh) panics
// the view's discovery: launcherrefs.go launcherRef takes i, the index of
// the first element with a wildcard, in splitPath of the UNCLEAN path
// (base/../scripts/*.sh), and passes it with the CLEANED path to
// launcherglob.go launcherGlobAt, whose els[:i] is then out of range
// ("slice bounds out of range [8:7]"). Every file decision and every
// command over that workspace panics (the HTTP handler's connection is
// dropped; the view's waiters get a nil view), so a person's ordinary
// .envrc makes the workspace unusable, and the pattern's matches are not
// watched. Control: the same loop over scripts/*.sh without the cd keeps
// the match read-only and answers.
func TestAttack167LauncherGlobDotDot(t *testing.T) {
	decide := func(envrc string) (panicked string, err error) {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			"a/sub/.envrc":       envrc,
			"a/sub/scripts/x.sh": "export X=1\n",
			"a/scripts/x.sh":     "export X=1\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		target := f.ws + "/a/scripts/x.sh"
		if envrc == "for f in scripts/*.sh; do source \"$f\"; done\n" {
			target = f.ws + "/a/sub/scripts/x.sh"
		}
		defer func() {
			if r := recover(); r != nil {
				panicked = fmt.Sprint(r)
			}
		}()
		_, err = (DecisionChecker{}).ResolveFile(s, target, domain.AccessWrite, false)
		return "", err
	}
	if p, err := decide("for f in scripts/*.sh; do source \"$f\"; done\n"); p != "" || err == nil {
		t.Fatalf("control: a file tool's write of a match of sub/.envrc's scripts/*.sh: err=%v panic=%q (want refused, no panic)", err, p)
	}
	for _, envrc := range []string{
		"for f in ../scripts/*.sh; do source \"$f\"; done\n",
		"cd ..\nfor f in scripts/*.sh; do source \"$f\"; done\n",
	} {
		p, err := decide(envrc)
		if p != "" {
			t.Errorf("a file decision in a workspace whose a/sub/.envrc is %q panicked: %s", envrc, p)
			continue
		}
		if err == nil {
			t.Errorf("a file tool's write of a/scripts/x.sh, which a/sub/.envrc (%q) sources, was allowed", envrc)
		}
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack166EnvrcCdThenSource (review 166): a nested .envrc changes
// directory before it sources (cd .. / cd "$(git rev-parse
// --show-toplevel)" / pushd ..), so its relative names and $PWD name the
// directory above, not the .envrc's own (launcherparse.go envrcRefs reads
// every relative name and $PWD against the .envrc's directory, and has no
// notion of cd). direnv runs the .envrc in bash, which sources the parent's
// scripts on the person's next cd into sub/; they stay writable to a file
// tool and to the command. Control: the same names without the cd
// (sub/.envrc's own scripts/own.sh) are read-only, and a script nothing
// names is written.
func TestAttack166EnvrcCdThenSource(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"sub/.envrc": "source scripts/own.sh\n" +
			"cd .. && source scripts/c1.sh\n" +
			"cd \"$(git rev-parse --show-toplevel)\"; source \"$PWD/scripts/c2.sh\"\n" +
			"pushd .. >/dev/null; . ./scripts/c3.sh; popd >/dev/null\n",
		"sub/scripts/own.sh": "export OWN=1\n",
		"scripts/c1.sh":      "export C1=1\n",
		"scripts/c2.sh":      "export C2=1\n",
		"scripts/c3.sh":      "export C3=1\n",
		"scripts/other.sh":   "export OTHER=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/sub/scripts/own.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a file tool's write of sub/scripts/own.sh (sourced without a cd) was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/other.sh", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a file tool's write of scripts/other.sh was refused: %v", err)
	}
	for _, n := range []string{"c1", "c2", "c3"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/"+n+".sh", domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of scripts/%s.sh, which sub/.envrc sources after a cd to the directory above, was allowed", n)
		}
	}
	r := sh(t, s, "for n in c1 c2 c3 other; do echo 'touch /tmp/pwned' >> scripts/$n.sh; done; echo 'touch /tmp/pwned' >> sub/scripts/own.sh; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/sub/scripts/own.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: sub/scripts/own.sh was rewritten by the command: %q", b)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/other.sh"); !strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/other.sh was not written by the command: %q", b)
	}
	for _, n := range []string{"c1", "c2", "c3"} {
		if b, _ := os.ReadFile(f.ws + "/scripts/" + n + ".sh"); strings.Contains(string(b), "pwned") {
			t.Errorf("scripts/%s.sh, which sub/.envrc sources after a cd, was rewritten by the command: %q", n, b)
		}
	}
}

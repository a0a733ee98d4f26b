package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack167EnvrcCdForms (review 167): the fix of review 166 tracks a
// .envrc's cd/pushd/popd (launcherparse.go envrcRefs: a command whose
// first word is cd or pushd, after a shell keyword) so a name given after
// `cd ..` is watched in the directory above. bash changes directory just
// as well through `builtin cd ..`, `command cd ..`, a subshell written
// without a blank (`(cd .. && source x)`), a function whose body cds
// (`up() { cd ..; }; up`), and direnv's find_up (source "$(find_up
// scripts/x.sh)" searches from the .envrc's directory up to /): none of
// these moves envrcRefs' dir, and the bare reader (envrcbare.go) reads
// every name from the .envrc's own directory, so ws/scripts/cN.sh, which
// sub/.envrc sources on the person's next cd into sub/, stays writable to
// a file tool and to the command. Control: the same script sourced after
// a plain `cd ..` (the review 166 form) is read-only, and a script
// nothing names is written.
func TestAttack167EnvrcCdForms(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"sub0/.envrc":      "cd .. && source scripts/plain.sh\n",
		"sub1/.envrc":      "builtin cd .. && source scripts/c1.sh\n",
		"sub2/.envrc":      "command cd ..; source scripts/c2.sh\n",
		"sub3/.envrc":      "(cd .. && source scripts/c3.sh)\n",
		"sub4/.envrc":      "up() { cd ..; }\nup; source scripts/c4.sh\n",
		"sub5/.envrc":      "source \"$(find_up scripts/c5.sh)\"\n",
		"scripts/plain.sh": "export PLAIN=1\n",
		"scripts/c1.sh":    "export C1=1\n",
		"scripts/c2.sh":    "export C2=1\n",
		"scripts/c3.sh":    "export C3=1\n",
		"scripts/c4.sh":    "export C4=1\n",
		"scripts/c5.sh":    "export C5=1\n",
		"scripts/other.sh": "export OTHER=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/plain.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a file tool's write of scripts/plain.sh (sourced after a plain cd ..) was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/other.sh", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a file tool's write of scripts/other.sh was refused: %v", err)
	}
	names := []string{"c1", "c2", "c3", "c4", "c5"}
	for _, n := range names {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/"+n+".sh", domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of scripts/%s.sh, which subN/.envrc sources from the directory above, was allowed", n)
		}
	}
	r := sh(t, s, "for n in plain c1 c2 c3 c4 c5 other; do echo 'touch /tmp/pwned' >> scripts/$n.sh; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/plain.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/plain.sh was rewritten by the command: %q", b)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/other.sh"); !strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/other.sh was not written by the command: %q", b)
	}
	for _, n := range names {
		if b, _ := os.ReadFile(f.ws + "/scripts/" + n + ".sh"); strings.Contains(string(b), "pwned") {
			t.Errorf("scripts/%s.sh, which subN/.envrc sources from the directory above, was rewritten by the command: %q", n, b)
		}
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack166EnvrcSourceUp (review 166): direnv's source_up [file] and
// source_up_if_exists [file] source the nearest file of that name (.envrc
// without one) searched from the .envrc's PARENT directory up to /, and,
// as direnv's manual says of source_env, "the other .envrc is not checked
// by the security framework": no `direnv allow` is asked for it. A nested
// .envrc the person allowed (a/b/.envrc: source_up; c/d/.envrc:
// source_up_if_exists env.sh) thus runs, at the person's next cd into it,
// whatever a/.envrc or c/env.sh holds. envrcRefs/launcherRuns
// (sandbox/launcherparse.go, envrcbare.go) read source_up's argument as a
// name in the .envrc's own directory (and its missing argument as
// nothing), so a/.envrc and c/env.sh are written by a file tool and made
// by a command, and stay. Control: a script the same .envrc sources by
// name (own.sh) is read-only to both; an unrelated script is written.
func TestAttack166EnvrcSourceUp(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"a/b/.envrc": "source_up\nsource own.sh\n",
		"a/b/own.sh": "export OWN=1\n",
		"c/d/.envrc": "source_up_if_exists env.sh\n",
		"c/other.sh": "export OTHER=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/a/b/own.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a file tool's write of a/b/own.sh, which a/b/.envrc sources, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/c/other.sh", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a file tool's write of c/other.sh was refused: %v", err)
	}
	for _, n := range []string{"a/.envrc", "c/env.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which a nested .envrc's source_up sources unchecked, was allowed", n)
		}
	}
	r := sh(t, s, "for n in a/.envrc c/env.sh a/b/own.sh c/other.sh; do echo 'touch /tmp/pwned' >> $n; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/a/b/own.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: a/b/own.sh was rewritten by the command: %q", b)
	}
	if b, _ := os.ReadFile(f.ws + "/c/other.sh"); !strings.Contains(string(b), "pwned") {
		t.Fatalf("control: c/other.sh was not written by the command: %q", b)
	}
	for _, n := range []string{"a/.envrc", "c/env.sh"} {
		if b, err := os.ReadFile(f.ws + "/" + n); err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which a nested .envrc's source_up sources unchecked, was made by the command and stayed: %q", n, b)
		}
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack167EnvrcLibraryDir (review 167): direnv's source_env FILE
// sources FILE from FILE's own directory (direnv's stdlib: pushd
// "$(dirname "$rcpath")"; . "./$(basename "$rcpath")"; popd), and a plain
// `source` after a cd runs the library in the directory the cd led to. So
// the names a library gives relative to the working directory are taken
// from the library's directory (source_env) or from where the cd led, not
// from the .envrc's. envrclibs.go envrcLibraries finds and reads the
// library (env/lib.sh, ../lib.sh), but readLauncherRefs (launcherrefs.go)
// resolves every name in the library's text from the .envrc's directory
// (d.launcherRef(base, ref) for launcherRefsOf(lib) and the bare reader's
// run and names): the scripts those libraries source on the person's next
// cd (env/common.sh, ws/scripts/inner.sh) stay writable to a file tool and
// to the command. Control: a library in the .envrc's own directory
// (own/lib.sh sourcing own.sh) keeps own/own.sh read-only; a script nothing
// names is written.
func TestAttack167EnvrcLibraryDir(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		// Control: the library and its script in the .envrc's directory.
		"own/.envrc": "source_env lib.sh\n",
		"own/lib.sh": "source own.sh\n",
		"own/own.sh": "export OWN=1\n",
		// source_env of a library in a subdirectory: it runs there.
		"a/.envrc":        "source_env env/lib.sh\n",
		"a/env/lib.sh":    "source common.sh\n",
		"a/env/common.sh": "export COMMON=1\n",
		// A library in the directory above, by source_env and after cd.
		"b/sub/.envrc":       "source_env ../lib.sh\n",
		"b/lib.sh":           "source scripts/inner.sh\n",
		"b/scripts/inner.sh": "export INNER=1\n",
		"c/sub/.envrc":       "cd .. && source lib.sh\n",
		"c/lib.sh":           "source scripts/inner.sh\n",
		"c/scripts/inner.sh": "export INNER=1\n",
		"other.sh":           "export OTHER=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/own/own.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a file tool's write of own/own.sh (sourced by own/lib.sh, which own/.envrc sources) was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/other.sh", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a file tool's write of other.sh was refused: %v", err)
	}
	targets := []string{"a/env/common.sh", "b/scripts/inner.sh", "c/scripts/inner.sh"}
	for _, n := range targets {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which a library a .envrc sources runs from its own directory, was allowed", n)
		}
	}
	r := sh(t, s, "for n in own/own.sh other.sh "+strings.Join(targets, " ")+"; do echo 'touch /tmp/pwned' >> $n; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/own/own.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: own/own.sh was rewritten by the command: %q", b)
	}
	if b, _ := os.ReadFile(f.ws + "/other.sh"); !strings.Contains(string(b), "pwned") {
		t.Fatalf("control: other.sh was not written by the command: %q", b)
	}
	for _, n := range targets {
		if b, _ := os.ReadFile(f.ws + "/" + n); strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which a library a .envrc sources runs, was rewritten by the command: %q", n, b)
		}
	}
}

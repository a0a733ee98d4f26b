package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestEnvrcCdThenBareName: a nested .envrc that changes directory and then
// runs a bare name (cd .. && bash setup.sh) runs the name from where the
// cd led: the parent's setup.sh stays read-only to a file tool and to the
// command, and a boot.sh the command makes there, which did not exist, is
// set aside. (The same names in the .envrc's own directory are kept too:
// a cd in a subshell or a branch may not happen.) Control: a name nothing
// runs, beside them, is written and stays.
func TestEnvrcCdThenBareName(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"sub/.envrc":   "cd .. && bash setup.sh\ncd sub; pushd .. >/dev/null; bash boot.sh; popd >/dev/null\n",
		"setup.sh":     "export SETUP=1\n",
		"sub/other.sh": "export OWN=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/setup.sh", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of setup.sh, which sub/.envrc runs after cd .., was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/sub/other.sh", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a file tool's write of sub/other.sh was refused: %v", err)
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> setup.sh; echo 'touch /tmp/pwned' > boot.sh; echo x >> sub/other.sh; echo x > sub/new.txt; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/setup.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("setup.sh, which sub/.envrc runs after cd .., was rewritten by the command")
	}
	if b, err := os.ReadFile(f.ws + "/boot.sh"); err == nil {
		t.Errorf("boot.sh, which sub/.envrc runs after pushd .., stayed: %q", b)
	}
	for _, n := range []string{"sub/other.sh", "sub/new.txt"} {
		if b, _ := os.ReadFile(f.ws + "/" + n); !strings.Contains(string(b), "x") {
			t.Errorf("control: %s was not written by the command: %q", n, b)
		}
	}
}

// TestEnvrcLibraryOfLibraryDir: a library that a library sources by a
// name relative to its own directory (source_env runs each from there) is
// read, and what it sources is kept read-only. Control: a file beside it
// that nothing names is written.
func TestEnvrcLibraryOfLibraryDir(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"a/.envrc":             "source_env env/lib.sh\n",
		"a/env/lib.sh":         "source_env more/lib2.sh\n",
		"a/env/more/lib2.sh":   "source deep.sh\n",
		"a/env/more/deep.sh":   "export DEEP=1\n",
		"a/env/more/other.txt": "x\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/a/env/more/deep.sh", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of a/env/more/deep.sh, which a library's library sources from its own directory, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/a/env/more/other.txt", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a file tool's write of a/env/more/other.txt was refused: %v", err)
	}
}

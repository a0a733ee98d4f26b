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
// set aside. Control: the same names in the .envrc's own directory, which
// nothing runs, are written and stay.
func TestEnvrcCdThenBareName(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"sub/.envrc":   "cd .. && bash setup.sh\ncd sub; pushd .. >/dev/null; bash boot.sh; popd >/dev/null\n",
		"setup.sh":     "export SETUP=1\n",
		"sub/setup.sh": "export OWN=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/setup.sh", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of setup.sh, which sub/.envrc runs after cd .., was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/sub/setup.sh", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a file tool's write of sub/setup.sh was refused: %v", err)
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> setup.sh; echo 'touch /tmp/pwned' > boot.sh; echo x >> sub/setup.sh; echo x > sub/boot.sh; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/setup.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("setup.sh, which sub/.envrc runs after cd .., was rewritten by the command")
	}
	if b, err := os.ReadFile(f.ws + "/boot.sh"); err == nil {
		t.Errorf("boot.sh, which sub/.envrc runs after pushd .., stayed: %q", b)
	}
	for _, n := range []string{"sub/setup.sh", "sub/boot.sh"} {
		if b, _ := os.ReadFile(f.ws + "/" + n); !strings.Contains(string(b), "x") {
			t.Errorf("control: %s was not written by the command: %q", n, b)
		}
	}
}

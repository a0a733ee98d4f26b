package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack167EnvrcSubshellCd (review 167): review 166's cd tracking
// (launcherparse.go envrcRefs) strips a leading "(" or "{" as a shell
// keyword and then moves its dir for the cd inside a subshell (`( cd ..
// && make )`) or a pipeline (`cd .. | true`), which bash runs in a child:
// the .envrc's own directory does not change. Every name envrcRefs gives
// after it is rewritten (fix/joinEnvrcDir) into the directory above.
// For names only this reader finds, nothing else watches the real ones:
// direnv's `use nix` evaluates the .envrc's own shell.nix (its shellHook
// runs in the person's shell at every cd), which envrcUses adds; after the
// subshell's cd it is watched as ../shell.nix, and sub/shell.nix stays
// writable to a file tool and to the command. Control: own/.envrc's `use
// nix` without the subshell keeps own/shell.nix read-only; a file nothing
// names is written.
func TestAttack167EnvrcSubshellCd(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"own/.envrc":      "use nix\n",
		"own/shell.nix":   "{ }\n",
		"a/sub/.envrc":    "( cd .. && make gen )\nuse nix\n",
		"a/sub/shell.nix": "{ }\n",
		"b/sub/.envrc":    "cd .. | true\nuse nix\n",
		"b/sub/shell.nix": "{ }\n",
		"notes.txt":       "x\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/own/shell.nix", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a file tool's write of own/shell.nix (own/.envrc: use nix) was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/notes.txt", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a file tool's write of notes.txt was refused: %v", err)
	}
	targets := []string{"a/sub/shell.nix", "b/sub/shell.nix"}
	for _, n := range targets {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which its .envrc's use nix evaluates after a cd in a subshell, was allowed", n)
		}
	}
	r := sh(t, s, "for n in own/shell.nix notes.txt "+strings.Join(targets, " ")+"; do echo '# pwned' >> $n; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/own/shell.nix"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: own/shell.nix was rewritten by the command: %q", b)
	}
	if b, _ := os.ReadFile(f.ws + "/notes.txt"); !strings.Contains(string(b), "pwned") {
		t.Fatalf("control: notes.txt was not written by the command: %q", b)
	}
	for _, n := range targets {
		if b, _ := os.ReadFile(f.ws + "/" + n); strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which its .envrc's use nix evaluates, was rewritten by the command: %q", n, b)
		}
	}
}

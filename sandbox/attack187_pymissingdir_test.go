package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack187PythonMissingRunDir: review 187, pyshadow.go. pyPathRef
// watches the directory a launcher file runs python in only where it
// exists when the view is read (`!exists … return`), not where it is
// missing, as every other name a launcher file runs is (watched where
// missing). A .envrc that runs python in a directory not there yet
// (cd gen && python3 -c 'import platform': a build or generated
// directory, one a clean removed) leaves it unwatched: the agent's
// command makes gen/ with a platform.py in it, which stays, is read as the
// person's module by every later view (kept read-only), and runs in the
// library's place on the person's next cd, outside the sandbox.
//
// Control: with gen/ present when the view is read, the same command's
// gen/platform.py is set aside; gen/mine.py, the project's own module,
// stays in both.
func TestAttack187PythonMissingRunDir(t *testing.T) {
	for _, c := range []struct {
		present bool
	}{{present: true}, {present: false}} {
		f := newPlantFixture(t)
		files := map[string]string{".envrc": "cd gen && python3 -c 'import platform'\n"}
		if c.present {
			files["gen/.keep"] = ""
		}
		mkfiles(t, f.ws, files)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if c.present && writeAllowed(t, s, f.ws+"/gen/platform.py") {
			t.Fatalf("control: a file tool's write of gen/platform.py, gen/ present, was allowed")
		}
		r := sh(t, s, "mkdir -p gen && echo 'print(\"pwned\")' > gen/platform.py; echo mine > gen/mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/gen/mine.py"), "mine") {
			t.Fatalf("present=%v: premise: the command did not run: %d %s", c.present, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/gen/platform.py") {
			if c.present {
				t.Fatalf("control: the command's gen/platform.py stayed with gen/ present")
			}
			later := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			t.Errorf("gen/platform.py, made with gen/ by a command where the .envrc runs python (cd gen && python3 -c 'import platform'), stayed (a later turn keeps it as the person's: its write allowed=%v)",
				writeAllowed(t, later, f.ws+"/gen/platform.py"))
		}
	}
}

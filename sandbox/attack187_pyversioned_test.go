package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack187VersionedPythonShadow: review 187, envrcbare.go. A .envrc
// that runs python by a versioned name (python3.11 -m venv .venv, the
// form pyenv, deadsnakes and Homebrew users write to pin a release;
// python2 -c …) puts its directory first on sys.path exactly as python3
// does: -m looks its module up there first (a venv.py is the person's
// next direnv's program) and venv imports logging (a logging.py is loaded
// in the library's place). Only the words "python" and "python3" are read
// as python (launcherRuns; the pyModules and pyPaths check), so neither
// the module's files nor the standard library's names are watched: a file
// tool's write of venv.py or logging.py is allowed, and a command's stays,
// to run outside the sandbox on the person's next cd.
//
// Control: the same .envrc with python3 refuses both, and sets aside what
// a command planted; the project's own utils.py stays writable in both.
func TestAttack187VersionedPythonShadow(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 -m venv .venv\n", control: true},
		{envrc: "python3.11 -m venv .venv\n"},
		{envrc: "python2 -c 'import platform'\npython3.12 -c 'import logging, venv'\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": c.envrc})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/utils.py") {
			t.Fatalf("%q: control: a write of utils.py, the project's own module, was refused", c.envrc)
		}
		for _, n := range []string{"venv.py", "logging.py"} {
			if writeAllowed(t, s, f.ws+"/"+n) {
				if c.control {
					t.Fatalf("control %q: a file tool's write of %s was allowed", c.envrc, n)
				}
				t.Errorf("%q: a file tool's write of %s, imported in the standard library's place where the .envrc runs python, was allowed", c.envrc, n)
			}
		}
		r := sh(t, s, "echo 'import os' > logging.py; echo mine > utils.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/utils.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/logging.py") {
			if c.control {
				t.Fatalf("control %q: the command's logging.py stayed", c.envrc)
			}
			t.Errorf("%q: logging.py, made by a command where the .envrc runs python (venv imports logging), stayed", c.envrc)
		}
	}
}

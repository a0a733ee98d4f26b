package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack187PythonScriptPWDForms: review 187, envrcbare.go and
// pyshadow.go. A .envrc that runs a python script named through the
// project's directory (python3 "$PWD/tools/gen.py", "$(pwd)/…", ~+/…,
// $(expand_path tools/gen.py), the forms review 185 read for node) has
// python put tools/ first on sys.path, as `python3 tools/gen.py` does.
// pythonRunDir reads the word's first value, "" for an expansion, as a
// script in the current directory (path.Dir("") = "."), so the
// directory watched is the project's top, not tools/: a random.py the
// agent writes in tools/ is imported in the library's place (tempfile
// imports random) on the person's next cd, outside the sandbox.
//
// Control: the same script named as tools/gen.py has tools/random.py
// refused and a command's set aside; tools/helpers.py stays writable.
func TestAttack187PythonScriptPWDForms(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 tools/gen.py\n", control: true},
		{envrc: "python3 \"$PWD/tools/gen.py\"\n"},
		{envrc: "python3 \"$(pwd)/tools/gen.py\"\n"},
		{envrc: "python3 ~+/tools/gen.py\n"},
		{envrc: "python3 \"$(expand_path tools/gen.py)\"\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": c.envrc, "tools/gen.py": "import tempfile\nprint('honest')\n"})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/tools/helpers.py") {
			t.Fatalf("%q: control: a write of tools/helpers.py, the project's own module, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/tools/random.py") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of tools/random.py was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of tools/random.py, imported in the standard library's place beside the script python runs, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > tools/random.py; echo mine > tools/helpers.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tools/helpers.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/tools/random.py") {
			if c.control {
				t.Fatalf("control %q: the command's tools/random.py stayed", c.envrc)
			}
			t.Errorf("%q: tools/random.py, made by a command beside the script the .envrc runs, stayed", c.envrc)
		}
	}
}

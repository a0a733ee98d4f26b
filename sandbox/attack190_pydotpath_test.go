package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack190PythonDotStdlibShadow: review 190, pyshadow.go
// (pythonRunTarget, pyScriptRef). `python3 .` (and `python3 ./`,
// `python3 "$PWD"`) runs the directory's __main__.py with that directory
// itself first on sys.path: CPython's sys.path[0] for a directory (or zip)
// argument is the argument, not its parent (`python3 ./` keeps the
// directory whole: the known limit of review 182). pythonRunTarget reads "." as
// a script's name, and pyScriptRef watches path.Dir of it: the .envrc's
// parent directory, not the .envrc's own. dirModule keeps __main__.py
// read-only, but nothing watches the modules of standard library names
// beside it: a json.py the agent writes next to the person's __main__.py
// (which imports json) is imported in the library's place when the
// person's next direnv runs `python3 .`, outside the sandbox (verified
// with CPython 2.7, 3.8, 3.12 and 3.13 here: the shadow runs first).
//
// Control: the same directory with the same __main__.py run by its name
// (`python3 __main__.py`, whose sys.path[0] is the same directory) has
// json.py refused to a write decision and the command's set aside; mine.py,
// the project's own module, stays writable in every form.
func TestAttack190PythonDotStdlibShadow(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 __main__.py\n", control: true},
		{envrc: "python3 .\n"},
		{envrc: "cd sub && python3 ..\n"},
		{envrc: "python3 \"$PWD\"\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":      c.envrc,
			"__main__.py": "import json\nprint('honest')\n",
			"sub/README":  "the .envrc runs python from here\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%q: control: a write of mine.py, the project's own module, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/__main__.py") {
			t.Fatalf("%q: control: a write of __main__.py, which the .envrc runs, was allowed", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/json.py") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of json.py was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of json.py, imported in the standard library's place by the __main__.py `python3 .` runs, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > json.py; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/json.py") {
			if c.control {
				t.Fatalf("control %q: the command's json.py stayed", c.envrc)
			}
			msg := ""
			if py, err := exec.LookPath("python3"); err == nil {
				cmd := exec.Command(py, ".")
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `python3 .` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%q: json.py, made by a command beside the __main__.py the .envrc runs, stayed%s", c.envrc, msg)
		}
	}
}

package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack192PythonIsolatedDotStdlibShadow: review 192, pyshadow.go
// (pythonRunTarget on pythonArgs' isolated). pythonRunTarget reads -I or
// -P as "no directory is put first on sys.path" and watches no stdlib
// shadow for the run. That holds for a script (python3 -P app.py), but a
// directory (or zip) argument is itself put first on sys.path whatever
// -I/-P say: CPython must import its __main__ from there (verified here
// with 3.11, 3.12 and 3.13: `python3 -I .` and `python3 -P .` print the
// directory as sys.path[0] and import a json.py beside __main__.py in the
// library's place). So `python3 -I .`, which a careful .envrc writes for
// an "isolated" run, leaves the stdlib shadows of the project's directory
// unwatched: a json.py the agent writes there runs when the person's next
// direnv runs it, outside the sandbox.
//
// Control: `python3 .` has json.py refused to a write decision and the
// command's set aside; mine.py, the project's own module, stays writable.
func TestAttack192PythonIsolatedDotStdlibShadow(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 .\n", control: true},
		{envrc: "python3 -I .\n"},
		{envrc: "python3 -P .\n"},
		{envrc: "python3 -I \"$PWD\"\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":      c.envrc,
			"__main__.py": "import json\nprint('honest')\n",
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
			t.Errorf("%q: a file tool's write of json.py, imported in the standard library's place by the __main__.py it runs, was allowed", c.envrc)
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
			if _, err := exec.LookPath("python3"); err == nil {
				cmd := exec.Command("bash", "-c", strings.TrimSpace(c.envrc))
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `" + strings.TrimSpace(c.envrc) + "` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%q: json.py, made by a command beside the __main__.py the .envrc runs, stayed%s", c.envrc, msg)
		}
	}
}

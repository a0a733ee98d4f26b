package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack190PythonOptionArgument: review 190, pymodule.go
// (pythonModuleArg). python's options that take their argument as the next
// word are read as -W and -X only: CPython 3.7+'s
// `--check-hash-based-pycs MODE` (the comment says so and skips only the
// option), and 2.7's `-Q ARG` (-Q new: the division option), leave the
// option's argument read as the script python runs, so the -m after it
// is not seen. `python3 --check-hash-based-pycs never -m pip install -r
// requirements.txt` runs pip from the .envrc's directory first (python -m
// puts the current directory first on sys.path; verified with CPython 3.8
// and 3.13, and 2.7's `python -Q new -m pip`, here: a pip.py there runs),
// but pip.py, pip/__init__.py and pip/__main__.py beside the .envrc are
// neither refused nor set aside: the person's next direnv runs the agent's
// pip outside the sandbox.
//
// Control: the same .envrc without the option (`python3 -m pip install -r
// requirements.txt`) has pip.py refused to a write decision and the
// command's set aside; mine.py, the project's own module, stays writable.
func TestAttack190PythonOptionArgument(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 -m pip install -r requirements.txt\n", control: true},
		{envrc: "python3 --check-hash-based-pycs never -m pip install -r requirements.txt\n"},
		{envrc: "python2 -Q new -m pip install -r requirements.txt\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":           c.envrc,
			"requirements.txt": "requests\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%q: control: a write of mine.py, the project's own module, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/pip.py") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of pip.py was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of pip.py, the module the .envrc's python -m runs from its directory, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > pip.py; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/pip.py") {
			if c.control {
				t.Fatalf("control %q: the command's pip.py stayed", c.envrc)
			}
			msg := ""
			if py, err := exec.LookPath("python3"); err == nil && strings.HasPrefix(c.envrc, "python3") {
				cmd := exec.Command(py, "--check-hash-based-pycs", "never", "-m", "pip", "--version")
				cmd.Dir = f.ws
				cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
				out, _ := cmd.CombinedOutput()
				msg = "; the person's python3 prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%q: pip.py, made by a command where the .envrc runs python -m pip, stayed%s", c.envrc, msg)
		}
	}
}

// TestAttack190PythonOptionArgumentDot: the same flaw hides `python3 .`
// (dirmodule.go's scriptArg skips -W and -X only): with
// `--check-hash-based-pycs never .` the directory's __main__.py, which
// `python3 .` keeps read-only, stays writable, and the person's next
// direnv runs the agent's rewrite (verified with CPython 3.12 here).
//
// Control: `python3 -X dev .` has __main__.py refused to a write decision
// and a command's rewrite of it fail; tool.py stays writable.
func TestAttack190PythonOptionArgumentDot(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 -X dev .\n", control: true},
		{envrc: "python3 --check-hash-based-pycs never .\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":      c.envrc,
			"__main__.py": "print('honest')\n",
			"tool.py":     "print('tool')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/tool.py") {
			t.Fatalf("%q: control: a write of tool.py, which nothing runs, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/__main__.py") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of __main__.py was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of __main__.py, which the .envrc's python runs, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > __main__.py; echo '#mine' >> tool.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tool.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/__main__.py"); got != "print('honest')\n" {
			if c.control {
				t.Fatalf("control %q: the command rewrote __main__.py: %q", c.envrc, got)
			}
			t.Errorf("%q: a command rewrote __main__.py, which the person's next direnv runs", c.envrc)
		}
	}
}

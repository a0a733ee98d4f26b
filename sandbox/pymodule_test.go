package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestPythonModuleFiles: `python3 -m venv .venv` in .envrc runs venv from
// the .envrc's directory first (python -m puts the current directory on
// sys.path before the standard library): a venv.py the agent wrote there
// was the person's next direnv's program. The module's files there are
// kept, watched where missing: a file tool's write is refused and a
// command's is set aside. The forms: -m NAME, -mNAME, -Bm NAME, a dotted
// name (its packages' __init__.py too), after a cd, in a VS Code task.
//
// Controls: another .py file beside it stays writable, by a file tool and
// by a command; `python3 -c '…' mytool` and `python3 script.py mytool` run no
// module mytool, and mytool.py stays writable there.
func TestPythonModuleFiles(t *testing.T) {
	for _, c := range []struct {
		files   map[string]string
		kept    []string
		control []string
	}{{
		files:   map[string]string{".envrc": "python3 -m venv .venv\n"},
		kept:    []string{"venv.py", "venv.pyc", "venv/__init__.py", "venv/__main__.py"},
		control: []string{"other.py"},
	}, {
		files:   map[string]string{".envrc": "python -B -mtools.boot --fast\n", "tools/x.txt": "x\n"},
		kept:    []string{"tools/__init__.py", "tools/boot.py", "tools/boot/__main__.py"},
		control: []string{"tools/other.py", "boot.py"},
	}, {
		files:   map[string]string{".envrc": "cd svc\npython3 -Bm pip install -r req.txt\n", "svc/req.txt": "x\n"},
		kept:    []string{"svc/pip.py", "svc/pip/__main__.py"},
		control: []string{"svc/other.py"},
	}, {
		files: map[string]string{".vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "t", "type": "shell", "command": "python3 -m pytest"}]}` + "\n"},
		kept:  []string{"pytest.py", "pytest/__main__.py"},
		// (the task's words are kept as names too: pytest whole)
		control: []string{"other.py"},
	}, {
		files:   map[string]string{".envrc": "python3 -c 'print(1)' mytool\npython3 run.py mytool\n", "run.py": "x\n"},
		control: []string{"mytool.py", "other.py"},
	}} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, c.files)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		for _, n := range c.control {
			if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err != nil {
				t.Errorf("%v: control: a write of %s, which no python -m runs, was refused: %v", c.files, n, err)
			}
		}
		for _, n := range c.kept {
			if writeAllowed(t, s, f.ws+"/"+n) {
				t.Errorf("%v: a file tool's write of %s, a file of the module python -m runs there, was allowed", c.files, n)
			}
		}
		if len(c.kept) == 0 {
			continue
		}
		plant, other := c.kept[0], c.control[0]
		r := sh(t, s, "mkdir -p $(dirname "+plant+") $(dirname "+other+"); echo 'import os' > "+plant+"; echo mine > "+other+"; echo done")
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
		}
		if !strings.Contains(readFileOr(f.ws+"/"+other), "mine") {
			t.Errorf("%v: control: the command could not write %s (%s)", c.files, other, r.Stderr)
		}
		if _, err := os.Stat(f.ws + "/" + plant); err == nil {
			t.Errorf("%v: %s, made by the command where python -m loads it, stayed", c.files, plant)
		}
	}
}

func TestPythonModuleArg(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "venv", ".venv"}, "venv"},
		{[]string{"-mvenv"}, "venv"},
		{[]string{"-Bm", "pip"}, "pip"},
		{[]string{"-W", "ignore", "-m", "pip"}, "pip"},
		{[]string{"-Wignore", "-m", "pip"}, "pip"},
		{[]string{"-X", "dev", "-m", "http.server"}, "http.server"},
		{[]string{"--version"}, ""},
		{[]string{"-c", "import x", "-m", "y"}, ""},
		{[]string{"run.py", "-m", "y"}, ""},
		{[]string{"-m"}, ""},
		{[]string{"-"}, ""},
	} {
		if got := pythonModuleArg(c.args); got != c.want {
			t.Errorf("pythonModuleArg(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

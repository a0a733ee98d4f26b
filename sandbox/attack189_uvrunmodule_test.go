package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack189UVRunModule: review 189, envrcbare.go (the uv run case of
// review 187). `uv run -m NAME` (uv's --module, astral-sh/uv#7754, 2024: "uv run
// -m http.server 8000", the way uv's documentation runs a module) runs
// `python -m NAME` in the project's environment, in the current
// directory, which python -m puts first on sys.path. The reader knows
// uv run only as `uv run FILE.py` (a script) and `uv run python …`
// (python's own words): after `uv run -m` it watches neither the module
// -m runs (pytest.py, pyModuleRef) nor the modules of standard library
// names python imports from that directory (argparse.py, which pytest
// imports: pyPathRef). A uv project's VS Code task (`uv run -m pytest`,
// run when the folder opens or the person picks it) then runs the agent's
// argparse.py or pytest.py outside the sandbox.
//
// Control: the same task as `uv run python -m pytest` has both refused to
// a write decision and the command's argparse.py set aside; the project's
// own mine.py stays writable in both.
func TestAttack189UVRunModule(t *testing.T) {
	for _, cmd := range []string{"uv run python -m pytest", "uv run -m pytest", "uv run --module pytest"} {
		control := strings.Contains(cmd, "python")
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "tests", "type": "shell", "command": "` + cmd + `", "runOptions": {"runOn": "folderOpen"}}]}`,
			"pyproject.toml":     "[project]\nname = \"app\"\nversion = \"0\"\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%s: control: a write of mine.py, the project's own module, was refused", cmd)
		}
		for _, n := range []string{"argparse.py", "pytest.py"} {
			if ok := writeAllowed(t, s, f.ws+"/"+n); ok && control {
				t.Fatalf("control: a file tool's write of %s beside a task running %s was allowed", n, cmd)
			} else if ok {
				t.Errorf("%s: a file tool's write of %s, which the task's python -m pytest imports from the folder, was allowed", cmd, n)
			}
		}
		r := sh(t, s, "echo 'import os; os.system(\"touch PWNED\")' > argparse.py; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", cmd, r.ExitCode, r.Stderr)
		}
		if stayed := exists(f.ws + "/argparse.py"); stayed && control {
			t.Fatalf("control: the command's argparse.py stayed beside a task running %s", cmd)
		} else if stayed {
			t.Errorf("%s: argparse.py, made by a command in the folder whose task runs it, stayed", cmd)
		}
	}
}

package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack189VSCodeTaskInterpreterVariable: review 189, vscodetasks.go
// and envrcbare.go. A Python project's VS Code task names its program by
// the Python extension's variable, "command":
// "${command:python.interpreterPath}" (or
// "${config:python.defaultInterpreterPath}"), the form the extension's
// documentation gives for tasks.json, with "args": ["-m", "unittest"]:
// VS Code runs that python in the folder with -m, the folder first on
// sys.path. The protections know python only by a literal program name
// (pythonName): the variable is no such word, so neither the module -m
// runs (unittest.py, pyModuleRef) nor the modules of standard library
// names python imports from the folder (argparse.py, which unittest's
// main imports: pyPathRef) are watched. The agent's argparse.py stays
// and runs outside the sandbox when the person opens the folder
// (runOn folderOpen) or runs the task.
//
// Control: the same task with "command": "python3" has argparse.py and
// unittest.py refused to a write decision and argparse.py set aside after
// a command; the project's own mine.py stays writable in both.
func TestAttack189VSCodeTaskInterpreterVariable(t *testing.T) {
	for _, prog := range []string{"python3", "${command:python.interpreterPath}", "${config:python.defaultInterpreterPath}"} {
		control := prog == "python3"
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "tests", "type": "process", "command": "` + prog + `", "args": ["-m", "unittest"], "runOptions": {"runOn": "folderOpen"}}]}`,
			"test_app.py":        "import unittest\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%s: control: a write of mine.py, the project's own module, was refused", prog)
		}
		for _, n := range []string{"argparse.py", "unittest.py"} {
			if ok := writeAllowed(t, s, f.ws+"/"+n); ok && control {
				t.Fatalf("control: a file tool's write of %s beside a task running python3 -m unittest was allowed", n)
			} else if ok {
				t.Errorf("%s: a file tool's write of %s, which the task's python -m unittest imports from the folder, was allowed", prog, n)
			}
		}
		r := sh(t, s, "echo 'import os; os.system(\"touch PWNED\")' > argparse.py; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", prog, r.ExitCode, r.Stderr)
		}
		if stayed := exists(f.ws + "/argparse.py"); stayed && control {
			t.Fatalf("control: the command's argparse.py stayed beside a task running python3 -m unittest")
		} else if stayed {
			t.Errorf("%s: argparse.py, made by a command in the folder whose task runs python -m unittest, stayed", prog)
		}
	}
}

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack189PythonJythonOrg: review 189, pystdlib.go and pyshadow.go.
// The standard library's copy and pickle of CPython 3.11 and earlier
// (Debian 12's python3, Ubuntu 22.04's, this machine's 3.11.7) begin with
// Jython's check `try: from org.python.core import PyStringMap except
// ImportError: …`: importing them imports a top-level module `org`,
// looked up on sys.path, the directory python runs in first. org is no
// name of the library's (sys.stdlib_module_names), so pyShadowFile leaves
// org.py (or org/__init__.py) writable and in place where a launcher file
// runs python. A project's VS Code task `python3 -m unittest` (its
// imports reach copy) then runs the agent's org.py
// outside the sandbox when the person runs it or opens the folder (checked
// with this machine's python3: `python3 -m unittest` in that directory
// runs it).
//
// Control: argparse.py, a library name unittest imports, beside the same
// task is refused and set aside; the project's own mine.py stays
// writable.
func TestAttack189PythonJythonOrg(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "tests", "type": "shell", "command": "python3 -m unittest", "runOptions": {"runOn": "folderOpen"}}]}`,
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/mine.py") {
		t.Fatalf("control: a write of mine.py, the project's own module, was refused")
	}
	if writeAllowed(t, s, f.ws+"/argparse.py") {
		t.Fatalf("control: a file tool's write of argparse.py was allowed")
	}
	for _, n := range []string{"org.py", "org/__init__.py"} {
		if writeAllowed(t, s, f.ws+"/"+n) {
			t.Errorf("a file tool's write of %s, which CPython 3.11's copy and pickle import from the folder python -m unittest runs in, was allowed", n)
		}
	}
	r := sh(t, s, "echo 'import os; os.system(\"touch PWNED\")' > org.py; echo 'print(1)' > argparse.py; echo mine > mine.py; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/argparse.py") {
		t.Fatalf("control: the command's argparse.py stayed")
	}
	if exists(f.ws + "/org.py") {
		msg := ""
		if py, err := exec.LookPath("python3"); err == nil {
			cmd := exec.Command(py, "-m", "unittest")
			cmd.Dir = f.ws
			cmd.Run()
			if exists(f.ws + "/PWNED") {
				msg = "; this machine's python3 -m unittest, run there, ran it"
				os.Remove(f.ws + "/PWNED")
			}
		}
		t.Errorf("org.py, made by a command in the folder whose task runs python3 -m unittest, stayed%s", msg)
	}
}

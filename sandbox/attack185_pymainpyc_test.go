package sandbox

import (
	"encoding/base64"
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack185PythonMainBytecode: review 185, dirModuleFiles. `python3 .`
// runs the directory's __main__ module as the import system finds it in
// the directory (runpy, sys.path[0] the directory): __main__.py, and,
// where that is missing, the sourceless __main__.pyc (and extension
// modules __main__.so, __main__.abi3.so before either). Only __main__.py
// is watched: a command that writes __main__.pyc beside a .envrc that
// runs `python3 .` keeps it, a file tool may write it, and the person's
// next direnv runs the agent's bytecode outside the sandbox.
//
// Control: __main__.py, made by the same command, is set aside, and a
// file tool's write of it is refused; tool.py, which nothing runs, stays
// writable.
func TestAttack185PythonMainBytecode(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":  "python3 .\n",
		"tool.py": "print('tool')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/tool.py") {
		t.Fatalf("control: a write of tool.py, which nothing runs, was refused")
	}
	if writeAllowed(t, s, f.ws+"/__main__.py") {
		t.Fatalf("control: a write of __main__.py, which `python3 .` runs, was allowed")
	}
	if writeAllowed(t, s, f.ws+"/__main__.pyc") {
		t.Errorf("a file tool's write of __main__.pyc, which `python3 .` runs where __main__.py is missing, was allowed")
	}
	// The bytecode of print('pwned'), made outside the sandbox where a
	// python3 is at hand, else any bytes (the file's staying is the flaw).
	pyc := []byte("not bytecode\n")
	if py, err := exec.LookPath("python3"); err == nil {
		dir := t.TempDir()
		if err := os.WriteFile(dir+"/x.py", []byte("print('pwned')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(py, "-c", "import py_compile; py_compile.compile('"+dir+"/x.py', cfile='"+dir+"/x.pyc', doraise=True)").CombinedOutput(); err != nil {
			t.Fatalf("py_compile: %v %s", err, out)
		}
		if pyc, err = os.ReadFile(dir + "/x.pyc"); err != nil {
			t.Fatal(err)
		}
	}
	r := sh(t, s, "echo "+base64.StdEncoding.EncodeToString(pyc)+" | base64 -d > __main__.pyc; echo pwned > __main__.py; echo mine >> tool.py; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFile(t, f.ws+"/tool.py"), "mine") {
		t.Fatalf("premise: the command did not run or could not write tool.py: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/__main__.py") {
		t.Fatalf("control: __main__.py, made by the command where `python3 .` runs it, stayed")
	}
	if exists(f.ws + "/__main__.pyc") {
		msg := ""
		if py, err := exec.LookPath("python3"); err == nil {
			cmd := exec.Command(py, ".")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			msg = "; the person's `python3 .` there prints " + strings.TrimSpace(string(out))
		}
		t.Errorf("__main__.pyc, made by the command where `python3 .` runs it, stayed%s", msg)
	}
}

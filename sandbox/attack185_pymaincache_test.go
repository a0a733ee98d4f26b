package sandbox

import (
	"encoding/base64"
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack185PythonMainCachedBytecode: review 185, dirModuleFiles.
// `python3 .` imports the directory's __main__ module through the import
// system (runpy: SourceFileLoader.get_code), which runs the cached
// bytecode __pycache__/__main__.<tag>.pyc in place of __main__.py where
// the cache says it is current: an "unchecked hash" .pyc (PEP 552) is
// taken as current whatever the source holds. __main__.py is kept
// read-only, but __pycache__ below it is not: a command (or a file tool)
// writes the agent's bytecode there, and the person's next direnv runs it
// in place of the person's own __main__.py, outside the sandbox.
//
// Control: the command's write of __main__.py itself fails, and a file
// tool's write of it is refused; tool.py, which nothing runs, stays
// writable.
func TestAttack185PythonMainCachedBytecode(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":      "python3 .\n",
		"__main__.py": "print('honest')\n",
		"tool.py":     "print('tool')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/tool.py") {
		t.Fatalf("control: a write of tool.py, which nothing runs, was refused")
	}
	if writeAllowed(t, s, f.ws+"/__main__.py") {
		t.Fatalf("control: a write of __main__.py, which `python3 .` runs, was allowed")
	}
	// The cache's name and the agent's bytecode (print('pwned'), its
	// source unchecked), made outside the sandbox where a python3 is at
	// hand, else CPython 3.11's name and any bytes (the file's staying is
	// the flaw).
	tag, pyc := "cpython-311", []byte("not bytecode\n")
	py, pyErr := exec.LookPath("python3")
	if pyErr == nil {
		dir := t.TempDir()
		if err := os.WriteFile(dir+"/x.py", []byte("print('pwned')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, "-c", "import sys, py_compile; py_compile.compile('"+dir+"/x.py', cfile='"+dir+
			"/x.pyc', doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH); print(sys.implementation.cache_tag)").CombinedOutput()
		if err != nil {
			t.Fatalf("py_compile: %v %s", err, out)
		}
		tag = strings.TrimSpace(string(out))
		if pyc, err = os.ReadFile(dir + "/x.pyc"); err != nil {
			t.Fatal(err)
		}
	}
	cache := "__pycache__/__main__." + tag + ".pyc"
	if writeAllowed(t, s, f.ws+"/"+cache) {
		t.Errorf("a file tool's write of %s, which `python3 .` runs in place of __main__.py, was allowed", cache)
	}
	r := sh(t, s, "echo pwned >> __main__.py; mkdir -p __pycache__ && echo "+base64.StdEncoding.EncodeToString(pyc)+" | base64 -d > "+cache+"; echo mine >> tool.py; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFile(t, f.ws+"/tool.py"), "mine") {
		t.Fatalf("premise: the command did not run or could not write tool.py: %d %s", r.ExitCode, r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/__main__.py"), "pwned") {
		t.Fatalf("control: the command wrote __main__.py, which `python3 .` runs")
	}
	if exists(f.ws + "/" + cache) {
		msg := ""
		if pyErr == nil {
			cmd := exec.Command(py, ".")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			msg = "; the person's `python3 .` there prints " + strings.TrimSpace(string(out))
		}
		t.Errorf("%s, written by the command where `python3 .` runs it, stayed%s", cache, msg)
	}
}

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack192Python2OptimizedShadow: review 192, pyshadow.go
// (pyShadowFile). A module of a standard library's name beside where a
// launcher file runs python is refused and set aside as NAME.py, .pyc,
// .so, but python 2 run with -O (or PYTHONOPTIMIZE) imports the
// sourceless NAME.pyo instead of NAME.pyc (verified here with CPython
// 2.7.18: `python2 -O .` beside a json.pyo prints the .pyo's output and
// json.__file__ is ./json.pyo). json.pyo stays writable to file tools
// and a command's is left: the person's next direnv runs the agent's
// code outside the sandbox.
//
// Control: json.pyc in the same place is refused to a write decision and
// a command's set aside; mine.py stays writable.
func TestAttack192Python2OptimizedShadow(t *testing.T) {
	py2 := "/root/.pyenv/versions/2.7.18/bin/python2"
	if _, err := os.Stat(py2); err != nil {
		t.Skip("no python 2.7 here")
	}
	// The agent's module, compiled where it can write (src/), both ways.
	tmp := t.TempDir()
	if err := os.WriteFile(tmp+"/json.py", []byte("print('pwned')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"", "-O"} {
		args := append([]string{}, flag, "-c", "import py_compile; py_compile.compile('json.py')")
		if flag == "" {
			args = args[1:]
		}
		cmd := exec.Command(py2, args...)
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("compiling: %v %s", err, out)
		}
	}
	for _, c := range []struct {
		name    string
		control bool
	}{
		{name: "json.pyc", control: true},
		{name: "json.pyo"},
	} {
		f := newPlantFixture(t)
		payload, err := os.ReadFile(tmp + "/" + c.name)
		if err != nil {
			t.Fatal(err)
		}
		mkfiles(t, f.ws, map[string]string{
			".envrc":      "python2 -O .\n",
			"__main__.py": "import json\nprint('honest')\n",
			"src/payload": string(payload),
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%s: control: a write of mine.py, the project's own module, was refused", c.name)
		}
		if writeAllowed(t, s, f.ws+"/"+c.name) {
			if c.control {
				t.Fatalf("control: a file tool's write of %s was allowed", c.name)
			}
			t.Errorf("a file tool's write of %s, imported in the standard library's place by `python2 -O .`, was allowed", c.name)
		}
		r := sh(t, s, "cp src/payload "+c.name+"; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", c.name, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/" + c.name) {
			if c.control {
				t.Fatalf("control: the command's %s stayed", c.name)
			}
			cmd := exec.Command(py2, "-O", ".")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s, made by a command beside the __main__.py the .envrc runs, stayed; the person's `python2 -O .` prints %s", c.name, strings.Join(strings.Fields(string(out)), " "))
		}
	}
}

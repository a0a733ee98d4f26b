//go:build knownlimits

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack187VenvOnPath: review 187. direnv's `layout python` puts the
// project's virtualenv's bin (.direnv/python-X.Y/bin) first in PATH
// (its PATH_add "$VIRTUAL_ENV/bin"), and `source .venv/bin/activate` puts
// .venv/bin there: the .envrc's next line that runs pip or python (`pip
// install -r requirements.txt`, `python -m pip install -e .`, the common
// form) runs the virtualenv's pip script, and its python, which processes
// the virtualenv's site-packages/*.pth at start (a line starting with
// `import` is run). What .envrc puts in PATH by name (PATH_add bin) is kept
// read-only, but not what these put there: the agent overwrites
// .direnv/python-3.11/bin/pip, or writes a .pth into its site-packages,
// and the person's next cd runs it outside the sandbox.
//
// Control: the same .envrc with the virtualenv's bin put in PATH by name
// (PATH_add .direnv/python-3.11/bin) has bin/pip refused; the project's
// own app.py stays writable.
func TestAttack187VenvOnPath(t *testing.T) {
	const venv = ".direnv/python-3.11"
	const pth = venv + "/lib/python3.11/site-packages/zz.pth"
	for _, c := range []struct {
		envrc, bin string
		control    bool
	}{
		{envrc: "PATH_add " + venv + "/bin\npip install -q -r requirements.txt\n", bin: venv + "/bin", control: true},
		{envrc: "layout python\npip install -q -r requirements.txt\n", bin: venv + "/bin"},
		{envrc: "layout python3\npython -m pip install -q -e .\n", bin: venv + "/bin"},
		{envrc: "source .venv/bin/activate\npip install -q -r requirements.txt\n", bin: ".venv/bin"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": c.envrc, "requirements.txt": "", "app.py": "",
			c.bin + "/pip":      "#!/usr/bin/python3\nimport sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n",
			c.bin + "/activate": "export VIRTUAL_ENV=x\n",
			venv + "/lib/python3.11/site-packages/pip/__init__.py": "",
			".venv/lib/python3.11/site-packages/pip/__init__.py":   "",
		})
		if err := os.Chmod(f.ws+"/"+c.bin+"/pip", 0o755); err != nil {
			t.Fatal(err)
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/app.py") {
			t.Fatalf("%q: control: a write of app.py, the project's own, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/"+c.bin+"/pip") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of %s/pip was allowed", c.envrc, c.bin)
			}
			t.Errorf("%q: a file tool's write of %s/pip, the pip the .envrc's next line runs from PATH, was allowed", c.envrc, c.bin)
		}
		if c.control {
			continue
		}
		p := strings.Replace(pth, venv, strings.TrimSuffix(c.bin, "/bin"), 1)
		r := sh(t, s, "echo 'import os; os.system(\"touch /tmp/pwned\")' > "+p+"; echo '#!/bin/sh' > "+c.bin+"/pip; echo mine > app.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/app.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/" + p) {
			t.Errorf("%q: %s, a .pth the virtualenv's python (run by the .envrc's next line) runs at start, stayed", c.envrc, p)
		}
		if strings.HasPrefix(readFileOr(f.ws+"/"+c.bin+"/pip"), "#!/bin/sh") {
			t.Errorf("%q: the command's rewrite of %s/pip, which the .envrc's next line runs, stayed", c.envrc, c.bin)
		}
	}
}

// TestAttack187VSCodeInterpreterVenv: review 187, the same for VS Code.
// A .vscode/settings.json naming the project's virtualenv's python
// (python.defaultInterpreterPath: ".venv/bin/python", what the Python
// extension writes when the person picks it) has that program kept
// read-only, since the extension starts it as the folder opens (to read
// its version and environment). But the virtualenv's python reads
// .venv/pyvenv.cfg (home: where its standard library lies) and runs each
// site-packages/*.pth line that starts with `import` at start: both stay
// writable, and the agent's .pth runs as the person opens the folder,
// outside the sandbox.
//
// Control: the interpreter .venv/bin/python and settings.json are
// refused; the project's own app.py stays writable.
func TestAttack187VSCodeInterpreterVenv(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".vscode/settings.json": `{"python.defaultInterpreterPath": "${workspaceFolder}/.venv/bin/python"}`,
		".venv/pyvenv.cfg":      "home = /usr/bin\n",
		".venv/lib/python3.11/site-packages/pip/__init__.py": "",
		"app.py": "",
	})
	if err := os.MkdirAll(f.ws+"/.venv/bin", 0o755); err != nil {
		t.Fatal(err)
	}
	// As venv makes it: a link to the base interpreter, which reads
	// ../pyvenv.cfg and takes .venv/lib/…/site-packages as its own.
	if err := os.Symlink("/usr/bin/python3", f.ws+"/.venv/bin/python"); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/app.py") {
		t.Fatalf("control: a write of app.py, the project's own, was refused")
	}
	for _, n := range []string{".venv/bin/python", ".vscode/settings.json"} {
		if writeAllowed(t, s, f.ws+"/"+n) {
			t.Fatalf("control: a file tool's write of %s was allowed", n)
		}
	}
	for _, n := range []string{".venv/lib/python3.11/site-packages/zz.pth", ".venv/pyvenv.cfg"} {
		if writeAllowed(t, s, f.ws+"/"+n) {
			t.Errorf("a file tool's write of %s, which the interpreter VS Code starts as the folder opens reads, was allowed", n)
		}
	}
	r := sh(t, s, "echo 'import os; os.system(\"touch /tmp/pwned\")' > .venv/lib/python3.11/site-packages/zz.pth; echo mine > app.py; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/app.py"), "mine") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/.venv/lib/python3.11/site-packages/zz.pth") {
		t.Errorf("the command's .venv/lib/python3.11/site-packages/zz.pth, run by the interpreter VS Code starts as the folder opens, stayed")
	}
}

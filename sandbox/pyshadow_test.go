package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestPythonStdlibShadow: a directory a launcher file runs python in
// (direnv's layout python: python -c "import pkgutil, platform…" in the
// .envrc's directory; python3 -m venv, which imports logging; a script's
// own directory) imports a module there of a standard library name in the
// library's place. A new one is refused to a file tool's write and set
// aside after a command that made it: a NAME.py, a package's
// __init__.py, a link of the library's name. One that exists is kept.
//
// Controls: the project's own modules (utils.py, a tests/ package) stay
// writable by a file tool and a command; a directory of a library name
// without __init__.py (test/, data) can be made; a python -I run puts no
// directory on sys.path and protects nothing.
func TestPythonStdlibShadow(t *testing.T) {
	for _, c := range []struct {
		envrc, dir string
		existing   map[string]string
		refused    []string
		kept       []string
	}{
		{envrc: "layout python\n", dir: ".", refused: []string{"platform.py", "pkgutil.py", "json/__init__.py", "shutil.cpython-311-x86_64-linux-gnu.so"}},
		{envrc: "python3 -m venv .venv\n", dir: ".", refused: []string{"logging.py", "venv.py"}},
		{envrc: "python3 tools/run.py\n", dir: "tools", existing: map[string]string{"tools/run.py": "x\n"}, refused: []string{"tools/shutil.py"}},
		{envrc: "layout_python3\n", dir: ".", existing: map[string]string{"platform.py": "# the person's\n"}, kept: []string{"platform.py"}, refused: []string{"types.py"}},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": c.envrc})
		mkfiles(t, f.ws, c.existing)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		for _, n := range []string{"utils.py", "tests/__init__.py", c.dir + "/mine.py"} {
			if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err != nil {
				t.Errorf("%q: control: a write of %s, the project's own module, was refused: %v", c.envrc, n, err)
			}
		}
		for _, n := range append(c.refused, c.kept...) {
			if writeAllowed(t, s, f.ws+"/"+n) {
				t.Errorf("%q: a file tool's write of %s, a module of a standard library name where python runs, was allowed", c.envrc, n)
			}
		}
		// A command plants the first, a package and a link of library
		// names; makes test/ (no __init__.py) and its own module.
		plant := c.refused[0]
		script := "mkdir -p " + c.dir + "/email " + c.dir + "/test && echo 'import os' > " + plant +
			" && echo x > " + c.dir + "/email/__init__.py && ln -s /tmp " + c.dir + "/string && echo mine > utils.py && echo done"
		r := sh(t, s, script)
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if !strings.Contains(readFileOr(f.ws+"/utils.py"), "mine") {
			t.Errorf("%q: control: the command's utils.py did not stay", c.envrc)
		}
		if fi, err := os.Stat(f.ws + "/" + c.dir + "/test"); err != nil || !fi.IsDir() {
			t.Errorf("%q: control: the command's test/ (no __init__.py) did not stay: %v", c.envrc, err)
		}
		for _, n := range []string{plant, c.dir + "/email/__init__.py", c.dir + "/string"} {
			if _, err := os.Lstat(f.ws + "/" + n); err == nil {
				t.Errorf("%q: %s, made by the command where python imports it in the standard library's place, stayed", c.envrc, n)
			}
		}
		for _, n := range c.kept {
			if !strings.Contains(readFileOr(f.ws+"/"+n), "the person's") {
				t.Errorf("%q: the person's %s changed", c.envrc, n)
			}
		}
	}
}

func TestPythonRunDir(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "import x"}, "."},
		{[]string{"-m", "venv"}, "."},
		{[]string{"-Bm", "venv"}, "."},
		{[]string{"tools/run.py", "-c"}, "tools"},
		{[]string{"-u", "run.py"}, "."},
		{[]string{"-W", "ignore", "a/b.py"}, "a"},
		{[]string{"-I", "-c", "x"}, ""},
		{[]string{"-P", "run.py"}, "."}, // read as if it were a directory run (python3 -P .: review 192)
		{[]string{"-"}, "."},
		{nil, "."},
	} {
		if got := pythonRunDir(c.args); got != c.want {
			t.Errorf("pythonRunDir(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestPythonShebangShadow: a script a launcher file runs by its path whose
// #! line runs python has its directory first on sys.path too. Control: a
// shell script's directory is not watched.
func TestPythonShebangShadow(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":        "./scripts/setup\n./tools/run\n",
		"scripts/setup": "#!/usr/bin/env -S python3 -u\nimport logging\n",
		"tools/run":     "#!/bin/sh\necho hi\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/tools/logging.py") {
		t.Errorf("control: a write of tools/logging.py, beside a shell script, was refused")
	}
	if writeAllowed(t, s, f.ws+"/scripts/logging.py") {
		t.Errorf("a write of scripts/logging.py, beside a python script .envrc runs (which imports logging), was allowed")
	}
}

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack189Python2LibraryNames: review 189, pystdlib.go and
// pyshadow.go. The protections read python2 as python (pythonName,
// pythonLayout's `layout python2`; README: "python2 … alike"), but the
// library's names are CPython 3's: Python 2's own are missing. direnv's
// `layout python2` runs `python2 -c "import pkgutil as u, platform as
// p…"` in the .envrc's directory on every entry, and Python 2's platform
// imports string, which imports strop (an extension module in
// lib-dynload, after the current directory on sys.path): a strop.py the
// agent wrote beside the .envrc runs outside the sandbox on the person's
// next cd (checked with this machine's Python 2.7.18). Python 2 also
// finds an extension module as NAMEmodule.so (imp.get_suffixes:
// platformmodule.so is platform), which pyShadowFile does not read.
//
// Control: platform.py beside the same .envrc is refused and set aside;
// the project's own mine.py stays writable.
func TestAttack189Python2LibraryNames(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "layout python2\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/mine.py") {
		t.Fatalf("control: a write of mine.py, the project's own module, was refused")
	}
	if writeAllowed(t, s, f.ws+"/platform.py") {
		t.Fatalf("control: a file tool's write of platform.py was allowed")
	}
	for _, n := range []string{"strop.py", "platformmodule.so"} {
		if writeAllowed(t, s, f.ws+"/"+n) {
			t.Errorf("a file tool's write of %s, which Python 2 imports from the .envrc's directory in layout python2's command, was allowed", n)
		}
	}
	r := sh(t, s, "echo 'import os; os.system(\"touch PWNED\")' > strop.py; echo 'print(1)' > platform.py; echo x > platformmodule.so; echo mine > mine.py; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/platform.py") {
		t.Fatalf("control: the command's platform.py stayed")
	}
	if exists(f.ws + "/platformmodule.so") {
		t.Errorf("platformmodule.so (Python 2's platform), made by a command beside the .envrc, stayed")
	}
	if exists(f.ws + "/strop.py") {
		msg := ""
		os.Remove(f.ws + "/platformmodule.so") // python2 would load it first (and fail to, this one being no library)
		for _, py := range []string{"python2", "python2.7", "/root/.pyenv/versions/2.7.18/bin/python2"} {
			p, err := exec.LookPath(py)
			if err != nil {
				continue
			}
			cmd := exec.Command(p, "-c", "import pkgutil as u, platform as p;print('.'.join(p.python_version_tuple()[:2]))")
			cmd.Dir = f.ws
			if cmd.Run() == nil && exists(f.ws+"/PWNED") {
				msg = "; " + p + " -c 'import pkgutil, platform', run there, ran it"
				os.Remove(f.ws + "/PWNED")
				break
			}
		}
		t.Errorf("strop.py, made by a command beside a .envrc with layout python2, stayed%s", msg)
	}
}

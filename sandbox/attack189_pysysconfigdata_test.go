package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack189PythonSysconfigData: review 189, pystdlib.go and
// pyshadow.go. The standard library's sysconfig loads its build
// variables from a module whose name it computes,
// _sysconfigdata_{abiflags}_{platform}_{multiarch}
// (_sysconfigdata__linux_x86_64-linux-gnu on x86-64 Linux), through the
// ordinary import system: it is looked up on sys.path, the directory
// python runs in first. It is no name of sys.stdlib_module_names, so
// pythonStdlib lacks it and pyShadowFile does not read it as a module of
// the library's. CPython 3.11 and later no longer import sysconfig at
// start-up (site did before), so `python3 -m venv` (a .envrc's
// `python3 -m venv .venv`, direnv's layout python when its virtualenv is
// missing, which the agent can remove) imports it from the .envrc's
// directory: a _sysconfigdata__linux_x86_64-linux-gnu.py the agent wrote
// there ran outside the sandbox on the person's next cd (checked with
// this machine's python3, 3.11.7: `python3 -m venv --without-pip v` runs
// it; pip install, which reads sysconfig's paths, too).
//
// Control: platform.py and venv.py in the same directory are refused to
// a write decision and set aside after the command; the project's own
// mine.py stays writable.
func TestAttack189PythonSysconfigData(t *testing.T) {
	const mod = "_sysconfigdata__linux_x86_64-linux-gnu.py"
	for _, envrc := range []string{"test -d .venv || python3 -m venv .venv\n", "layout python3\n"} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": envrc, "app.py": "print('app')\n"})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%q: control: a write of mine.py, the project's own module, was refused", envrc)
		}
		for _, n := range []string{"platform.py", "venv.py"} {
			if writeAllowed(t, s, f.ws+"/"+n) {
				t.Fatalf("%q: control: a file tool's write of %s was allowed", envrc, n)
			}
		}
		if writeAllowed(t, s, f.ws+"/"+mod) {
			t.Errorf("%q: a file tool's write of %s, which sysconfig imports from the directory python -m venv runs in, was allowed", envrc, mod)
		}
		r := sh(t, s, "echo 'import os; os.system(\"touch PWNED\"); build_time_vars = {}' > "+mod+"; echo 'print(1)' > platform.py; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/platform.py") {
			t.Fatalf("%q: control: the command's platform.py stayed", envrc)
		}
		if exists(f.ws + "/" + mod) {
			msg := ""
			if py, err := exec.LookPath("python3"); err == nil {
				dir := t.TempDir()
				cmd := exec.Command(py, "-m", "venv", "--without-pip", dir+"/v")
				cmd.Dir = f.ws
				if err := cmd.Run(); err == nil && exists(f.ws+"/PWNED") {
					msg = "; this machine's python3 -m venv, run there, ran it"
					os.Remove(f.ws + "/PWNED")
				}
			}
			t.Errorf("%q: %s, made by a command in the .envrc's directory, stayed%s", envrc, mod, msg)
		}
	}
}

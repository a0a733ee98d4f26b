package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack187PythonStdlibSha2: review 187, pystdlib.go. The list of the
// standard library's names misses _sha2 (sys.stdlib_module_names of
// CPython 3.12 and 3.13 hold it: the SHA-2 hashes' module, which replaced
// _sha256 and _sha512). CPython 3.12's random imports it at its top
// (`from _sha2 import sha512`), and random is imported by tempfile,
// which nearly every tool imports: a _sha2.py in the directory a launcher
// file runs python in is run in the library's place by Ubuntu 24.04's
// python3 (3.12). Not a standard library name to pyShadowFile, it is left
// writable to a file tool and stays after a command, to run outside the
// sandbox on the person's next cd.
//
// Control: random.py, tempfile.py and _sha512.py (3.11's name) beside the
// same script are refused and set aside; the project's own helpers.py
// stays writable.
func TestAttack187PythonStdlibSha2(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":       "python3 tools/gen.py\n",
		"tools/gen.py": "import tempfile\nprint('honest')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/tools/helpers.py") {
		t.Fatalf("control: a write of tools/helpers.py, the project's own module, was refused")
	}
	for _, n := range []string{"random.py", "tempfile.py", "_sha512.py"} {
		if writeAllowed(t, s, f.ws+"/tools/"+n) {
			t.Fatalf("control: a file tool's write of tools/%s was allowed", n)
		}
	}
	if writeAllowed(t, s, f.ws+"/tools/_sha2.py") {
		t.Errorf("a file tool's write of tools/_sha2.py, which CPython 3.12's random (imported by tempfile) imports from the script's directory, was allowed")
	}
	r := sh(t, s, "echo 'print(\"pwned\")' > tools/_sha2.py; echo 'print(\"pwned\")' > tools/_sha512.py; echo mine > tools/helpers.py; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tools/helpers.py"), "mine") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/tools/_sha512.py") {
		t.Fatalf("control: the command's tools/_sha512.py stayed")
	}
	if exists(f.ws + "/tools/_sha2.py") {
		msg := ""
		if py, err := exec.LookPath("python3.12"); err == nil {
			if out, err := exec.Command(py, f.ws+"/tools/gen.py").CombinedOutput(); err == nil {
				msg = "; python3.12 tools/gen.py prints " + strings.Join(strings.Fields(string(out)), " ")
			}
		}
		t.Errorf("tools/_sha2.py, made by a command beside a script the .envrc runs, stayed%s", msg)
	}
}

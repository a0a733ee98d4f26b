package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack192PythonClusterValueHidesDot: review 192, dirmodule.go
// (scriptArgs). The directory python runs as a module (`python3 .`: its
// __main__.py) is found by scriptArgs, node's reader of an interpreter's
// arguments, which skips the value of -W and -X only when the option
// stands alone. CPython reads options as letters of a cluster, and -W or
// -X last in one takes the next word as its value: `python3 -bW error .`,
// `python3 -EX dev .` (verified with 3.11 here: both run ./__main__.py).
// scriptArgs takes "error" (or "dev") for the script, never sees the
// ".", and __main__.py, which `python3 .` keeps read-only, stays writable
// (pythonArgs, review 190's one parser of python's arguments, reads the
// cluster right, but only for the stdlib shadows). The agent rewrites
// __main__.py and the person's next direnv runs it outside the sandbox.
//
// Control: `python3 -X dev .` (the option alone) has __main__.py refused
// to a write decision and a command's rewrite of it fail; mine.py stays
// writable.
func TestAttack192PythonClusterValueHidesDot(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 -X dev .\n", control: true},
		{envrc: "python3 -bW error .\n"},
		{envrc: "python3 -EX dev .\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":      c.envrc,
			"__main__.py": "print('honest')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%q: control: a write of mine.py, the project's own module, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/__main__.py") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of __main__.py was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of __main__.py, which the .envrc's python runs, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > __main__.py; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/__main__.py"); got != "print('honest')\n" {
			if c.control {
				t.Fatalf("control %q: the command rewrote __main__.py: %q", c.envrc, got)
			}
			msg := ""
			if _, err := exec.LookPath("python3"); err == nil {
				cmd := exec.Command("bash", "-c", strings.TrimSpace(c.envrc))
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `" + strings.TrimSpace(c.envrc) + "` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%q: a command rewrote __main__.py, which the person's next direnv runs%s", c.envrc, msg)
		}
	}
}

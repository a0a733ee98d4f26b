package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack190EnvChdirPython: review 190, envrcbare.go (the directory a
// launcher file runs python in). GNU env's --chdir=DIR (-CDIR, coreutils
// 8.28+) runs its program in DIR: `env --chdir=tools python3 -c 'import
// json'` in a .envrc runs python with tools/ first on sys.path (verified
// here with GNU env 9.1 and CPython 3: tools/json.py is imported in the
// library's place). The reader takes python's directory to be the
// .envrc's (it follows cd and pushd only), and the word --chdir=tools,
// an option, is neither a path (no "/") nor a bare name (keepBare drops
// words starting with "-"): tools/json.py is neither refused nor set
// aside, and the person's next direnv imports the agent's json.py outside
// the sandbox. uv's --directory=DIR (`uv run --directory=tools python
// …`, a global option that changes directory before running) reads the
// same (uv not installed here: not run).
//
// Control: `cd tools && python3 -c 'import json'` has tools/json.py
// refused to a write decision and the command's set aside (tools/mine.py,
// the project's own module, stays writable), and `env -C tools python3 …`
// (the directory a word of its own) has it refused as well.
func TestAttack190EnvChdirPython(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "cd tools && python3 -c 'import json'\n", control: true},
		{envrc: "env -C tools python3 -c 'import json'\n", control: true},
		{envrc: "env --chdir=tools python3 -c 'import json'\n"},
		{envrc: "env -Ctools python3 -c 'import json'\n"},
		{envrc: "uv run --directory=tools python -c 'import json'\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":        c.envrc,
			"tools/tool.py": "print('tool')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/mine.py") {
			t.Fatalf("%q: control: a write of mine.py, the project's own module, was refused", c.envrc)
		}
		if !strings.HasPrefix(c.envrc, "env -C ") && !writeAllowed(t, s, f.ws+"/tools/mine.py") {
			t.Fatalf("%q: control: a write of tools/mine.py, the project's own module, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/tools/json.py") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of tools/json.py was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of tools/json.py, imported in the standard library's place by the python the .envrc runs in tools/, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > tools/json.py; echo mine > mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/mine.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/tools/json.py") {
			if c.control {
				t.Fatalf("control %q: the command's tools/json.py stayed", c.envrc)
			}
			msg := ""
			if py, err := exec.LookPath("python3"); err == nil {
				cmd := exec.Command("env", "--chdir=tools", py, "-c", "import json")
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `env --chdir=tools python3 -c 'import json'` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%q: tools/json.py, made by a command where the .envrc runs python in tools/, stayed%s", c.envrc, msg)
		}
	}
}

// TestAttack190EnvChdirScript: review 190, the same flaw for any script a
// .envrc runs (the more direct form): `env --chdir=tools bash setup.sh`
// runs tools/setup.sh (GNU env changes directory before bash looks the
// script up), but the reader takes setup.sh from the .envrc's directory
// (where it watches a missing setup.sh), and tools/setup.sh, the person's
// script, stays writable to commands and file tools alike: the agent
// rewrites it and the person's next direnv runs it outside the sandbox.
//
// Control: `cd tools && bash setup.sh` has tools/setup.sh read-only to a
// command and refused to a write decision; tools/other.sh, which nothing
// runs, stays writable.
func TestAttack190EnvChdirScript(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "cd tools && bash setup.sh\n", control: true},
		{envrc: "env --chdir=tools bash setup.sh\n"},
		{envrc: "env -Ctools bash setup.sh\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":         c.envrc,
			"tools/setup.sh": "echo honest\n",
			"tools/other.sh": "echo other\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/tools/other.sh") {
			t.Fatalf("%q: control: a write of tools/other.sh, which nothing runs, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/tools/setup.sh") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of tools/setup.sh was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of tools/setup.sh, the script the .envrc runs, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'echo pwned' > tools/setup.sh; echo mine >> tools/other.sh; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tools/other.sh"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/tools/setup.sh"); got != "echo honest\n" {
			if c.control {
				t.Fatalf("control %q: the command rewrote tools/setup.sh: %q", c.envrc, got)
			}
			cmd := exec.Command("bash", "-c", strings.TrimSpace(c.envrc))
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%q: a command rewrote tools/setup.sh, which the person's next direnv runs (it prints %s)", c.envrc, strings.TrimSpace(string(out)))
		}
	}
}

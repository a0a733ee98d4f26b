package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack187PythonUvScript: review 187, pyshadow.go. uv runs a python
// script by handing its path to python, which puts the script's directory
// first on sys.path: a PEP 723 script made executable with uv's
// documented #! line (`#!/usr/bin/env -S uv run --script`), run by a
// .envrc as ./tools/gen.py, or run as `uv run tools/gen.py`, imports a
// random.py beside it in the library's place. pythonShebang reads only a
// #! line whose program is python (uv is not), and a .envrc's call is read
// as python's only where a word is "python" or "python3": tools/ is not
// watched, and the agent's tools/random.py runs on the person's next cd,
// outside the sandbox.
//
// Control: the same script with `#!/usr/bin/env python3` has
// tools/random.py refused and a command's set aside; tools/helpers.py
// stays writable.
func TestAttack187PythonUvScript(t *testing.T) {
	for _, c := range []struct {
		envrc, shebang string
		control        bool
	}{
		{envrc: "./tools/gen.py\n", shebang: "#!/usr/bin/env python3\n", control: true},
		{envrc: "./tools/gen.py\n", shebang: "#!/usr/bin/env -S uv run --script\n"},
		{envrc: "uv run tools/gen.py\n", shebang: ""},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": c.envrc, "tools/gen.py": c.shebang + "# /// script\n# dependencies = []\n# ///\nimport tempfile\nprint('honest')\n"})
		if err := os.Chmod(f.ws+"/tools/gen.py", 0o755); err != nil {
			t.Fatal(err)
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/tools/helpers.py") {
			t.Fatalf("%q %q: control: a write of tools/helpers.py, the project's own module, was refused", c.envrc, c.shebang)
		}
		if writeAllowed(t, s, f.ws+"/tools/random.py") {
			if c.control {
				t.Fatalf("control %q %q: a file tool's write of tools/random.py was allowed", c.envrc, c.shebang)
			}
			t.Errorf("%q %q: a file tool's write of tools/random.py, imported in the standard library's place beside the script uv runs python on, was allowed", c.envrc, c.shebang)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > tools/random.py; echo mine > tools/helpers.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tools/helpers.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/tools/random.py") {
			if c.control {
				t.Fatalf("control %q %q: the command's tools/random.py stayed", c.envrc, c.shebang)
			}
			t.Errorf("%q %q: tools/random.py, made by a command beside the script uv runs, stayed", c.envrc, c.shebang)
		}
	}
}

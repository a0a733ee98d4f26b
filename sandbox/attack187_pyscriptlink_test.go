package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack187PythonScriptLinkDir: review 187, pyshadow.go. Python puts
// first on sys.path the directory of the script's real path, not the
// directory of the name it was given (CPython's sys.path[0] is the
// realpath of the script, link followed: a bin/ of links to scripts is a
// common layout). pyPathRef watches path.Dir of the name the launcher
// file wrote (bin/), both for `python3 bin/tool` and for a #! script run
// as ./bin/tool, so the directory python really imports from (tools/,
// where the link leads) is left writable: a json.py the agent writes
// there is imported in the standard library's place when the person's
// next direnv runs the script, outside the sandbox.
//
// Control: the same script named by its own path (python3
// tools/tool.py) has tools/json.py refused and a command's set aside;
// tools/mine.py, the project's own module, stays writable.
func TestAttack187PythonScriptLinkDir(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "python3 tools/tool.py\n", control: true},
		{envrc: "python3 bin/tool\n"},
		{envrc: "./bin/tool\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":        c.envrc,
			"tools/tool.py": "#!/usr/bin/env python3\nimport json\nprint('honest')\n",
		})
		if err := os.Chmod(f.ws+"/tools/tool.py", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(f.ws+"/bin", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../tools/tool.py", f.ws+"/bin/tool"); err != nil {
			t.Fatal(err)
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/tools/mine.py") {
			t.Fatalf("%q: control: a write of tools/mine.py, the project's own module, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/tools/json.py") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of tools/json.py was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of tools/json.py, imported in the standard library's place by the script bin/tool links to, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'print(\"pwned\")' > tools/json.py; echo mine > tools/mine.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tools/mine.py"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/tools/json.py") {
			if c.control {
				t.Fatalf("control %q: the command's tools/json.py stayed", c.envrc)
			}
			msg := ""
			if py, err := exec.LookPath("python3"); err == nil {
				cmd := exec.Command(py, "bin/tool")
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `python3 bin/tool` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%q: tools/json.py, made by a command where the linked script's python imports json, stayed%s", c.envrc, msg)
		}
	}
}

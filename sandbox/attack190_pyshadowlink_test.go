package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack190PyShadowDirSwappedForLink: review 190, pyshadow.go
// (setAsidePyShadows). The check after a command lists the directory a
// launcher file runs python in (a pyShadow glob's dir) with O_NOFOLLOW and
// returns nothing when that fails: a command that replaces the directory
// with a symlink to one of its own (mv tools tools.orig; ln -s real tools,
// real/ holding the project's files and a json.py), or makes the missing
// directory as such a link, leaves json.py where the person's python
// imports it (python, run in tools/ through the link, puts it first on
// sys.path). `cd tools && layout python3` (direnv's layout runs python -c
// "import platform…" in the current directory on each entry) then imports
// the agent's module outside the sandbox. Nothing else looks at the link:
// no name the .envrc gives lies below tools/ (with `python3 -c …` the word
// -c, read as tools/-c, happens to be watched and the link is set aside).
//
// Control: the same .envrc with json.py written into tools/ itself has it
// set aside; a.py, the project's own module, stays where the command left
// it in every case.
func TestAttack190PyShadowDirSwappedForLink(t *testing.T) {
	for _, c := range []struct {
		name, cmd string
		control   bool
		present   bool
	}{
		{name: "json.py written in tools", cmd: "echo 'print(\"pwned\")' > tools/json.py; echo mine >> tools/a.py", control: true, present: true},
		{name: "tools swapped for a link", cmd: "mkdir real && cp -a tools/. real/ && echo 'print(\"pwned\")' > real/json.py && mv tools tools.orig && ln -s real tools && echo mine >> tools/a.py", present: true},
		{name: "tools made as a link", cmd: "mkdir real && echo 'print(\"pwned\")' > real/json.py && echo mine > real/a.py && ln -s real tools"},
	} {
		f := newPlantFixture(t)
		files := map[string]string{".envrc": "cd tools && layout python3\n"}
		if c.present {
			files["tools/a.py"] = "print('a')\n"
		}
		mkfiles(t, f.ws, files)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if c.present && writeAllowed(t, s, f.ws+"/tools/json.py") {
			t.Fatalf("%s: control: a file tool's write of tools/json.py was allowed", c.name)
		}
		r := sh(t, s, c.cmd+"; echo done")
		// The command's write through tools (real/a.py behind the link,
		// which may be set aside whole).
		if !strings.Contains(string(r.Stdout), "done") || r.ExitCode != 0 || !strings.Contains(readFileOr(f.ws+"/tools/a.py")+readFileOr(f.ws+"/real/a.py"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s (quarantined %v)", c.name, r.ExitCode, r.Stderr, r.Quarantined)
		}
		if _, err := os.Stat(f.ws + "/tools/json.py"); err == nil {
			if c.control {
				t.Fatalf("control %s: the command's tools/json.py stayed", c.name)
			}
			msg := ""
			if py, err := exec.LookPath("python3"); err == nil {
				cmd := exec.Command("bash", "-c", "cd tools && "+py+" -c 'import json'")
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `cd tools && python3 -c 'import json'` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%s: tools/json.py, where the .envrc's layout runs python, stayed (quarantined %v)%s", c.name, r.Quarantined, msg)
		}
	}
}

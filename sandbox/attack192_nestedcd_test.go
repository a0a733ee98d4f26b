package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack192NestedShellCdProgram: review 192, envrcbare.go (a nested
// shell's script). A .envrc's `cd tools && ./setup.sh` keeps
// tools/setup.sh read-only, and so does `bash -c 'cd tools; bash
// setup.sh'`; but the same program run by its path after a cd inside a
// nested shell's script, `sh -c 'cd tools && ./setup.sh'`, is read from
// the .envrc's directory (./setup.sh, missing there, watched) and
// tools/setup.sh stays writable to commands and file tools: the agent
// rewrites it and the person's next direnv runs it outside the sandbox
// (verified: sh there runs tools/setup.sh).
//
// Control: `cd tools && ./setup.sh` at the .envrc's top level has
// tools/setup.sh refused to a write decision and a command's rewrite of it
// fail; tools/other.sh, which nothing runs, stays writable.
func TestAttack192NestedShellCdProgram(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "cd tools && ./setup.sh", control: true},
		{envrc: "sh -c 'cd tools && ./setup.sh'"},
		{envrc: "bash -c 'cd tools || exit; ./setup.sh'"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":         c.envrc + "\n",
			"tools/setup.sh": "#!/bin/sh\necho honest\n",
			"tools/other.sh": "echo other\n",
		})
		if err := os.Chmod(f.ws+"/tools/setup.sh", 0o755); err != nil {
			t.Fatal(err)
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/tools/other.sh") {
			t.Fatalf("%s: control: a write of tools/other.sh, which nothing runs, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/tools/setup.sh") {
			if c.control {
				t.Fatalf("control %s: a file tool's write of tools/setup.sh was allowed", c.envrc)
			}
			t.Errorf("%s: a file tool's write of tools/setup.sh, which the .envrc runs, was allowed", c.envrc)
		}
		r := sh(t, s, "printf '#!/bin/sh\\necho pwned\\n' > tools/setup.sh; echo '#mine' >> tools/other.sh; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tools/other.sh"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/tools/setup.sh"); got != "#!/bin/sh\necho honest\n" {
			if c.control {
				t.Fatalf("control %s: the command rewrote tools/setup.sh: %q", c.envrc, got)
			}
			cmd := exec.Command("bash", "-c", "source ./.envrc")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s: a command rewrote tools/setup.sh, which the person's next direnv runs (bash there prints %s)", c.envrc, strings.Join(strings.Fields(string(out)), " "))
		}
	}
}

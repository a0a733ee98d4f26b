package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack190WholeDirLinkTarget: review 190, launcherrefs.go
// (launcherPathCounted). A directory a launcher file puts in PATH
// (direnv's `PATH_add bin`, `export PATH=$PWD/bin:$PATH`) is kept
// read-only whole: a command cannot add or rewrite a program there. But a
// program in it that is a symlink (bin/ of links into scripts/, a common
// layout) runs where its link leads, and that file, outside the kept
// directory, stays writable to commands and file tools: the agent rewrites
// scripts/tool.sh, and the person's next `tool` in the shell direnv set up
// (or the .envrc's own call of it) runs it outside the sandbox. Nothing
// in the view follows the links of a directory kept whole.
//
// Control: the same program as a file of bin/ itself is refused to a
// write decision and read-only to a command; scripts/other.sh, which
// nothing runs, stays writable.
func TestAttack190WholeDirLinkTarget(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		linked  bool
		control bool
	}{
		{envrc: "PATH_add bin\ntool\n", control: true},
		{envrc: "PATH_add bin\ntool\n", linked: true},
		{envrc: "export PATH=$PWD/bin:$PATH\n", linked: true},
	} {
		f := newPlantFixture(t)
		prog := "bin/tool"
		if c.linked {
			prog = "scripts/tool.sh"
		}
		mkfiles(t, f.ws, map[string]string{
			".envrc":           c.envrc,
			prog:               "#!/bin/sh\necho honest\n",
			"scripts/other.sh": "#!/bin/sh\necho other\n",
		})
		if err := os.Chmod(f.ws+"/"+prog, 0o755); err != nil {
			t.Fatal(err)
		}
		if c.linked {
			if err := os.MkdirAll(f.ws+"/bin", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../scripts/tool.sh", f.ws+"/bin/tool"); err != nil {
				t.Fatal(err)
			}
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/scripts/other.sh") {
			t.Fatalf("%q: control: a write of scripts/other.sh, which nothing runs, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/bin/new") {
			t.Fatalf("%q: control: a write of bin/new, in the directory .envrc puts in PATH, was allowed", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/"+prog) {
			if c.control {
				t.Fatalf("control %q: a file tool's write of %s was allowed", c.envrc, prog)
			}
			t.Errorf("%q: a file tool's write of %s, which bin/tool (in PATH) runs, was allowed", c.envrc, prog)
		}
		r := sh(t, s, "echo 'echo pwned' >> "+prog+"; echo '#mine' >> scripts/other.sh; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/scripts/other.sh"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/" + prog); got != "#!/bin/sh\necho honest\n" {
			if c.control {
				t.Fatalf("control %q: the command rewrote %s: %q", c.envrc, prog, got)
			}
			cmd := exec.Command("sh", "-c", "PATH=$PWD/bin:$PATH tool")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%q: a command rewrote %s, which the person's next `tool` runs (it prints %s)", c.envrc, prog, strings.Join(strings.Fields(string(out)), " "))
		}
	}
}

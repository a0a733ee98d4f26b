package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack154_LauncherGlobThroughProcCwdLink (review 154, high: host
// code execution in the person's shell when mise next loads its config).
// A trusted mise.toml sources "*/env.sh" (`_.source`). A new match is set
// aside after a command where the file really is (launcherglob.go,
// plantCheck.setAsideDeepMatches): the server globs the pattern and
// resolves each new match's directory (canonicalPath) — in its own
// process. The command makes env.sh at the project's top (no match of
// "*/env.sh", so kept) and a link x -> /proc/self/cwd. In the server,
// x/env.sh leads to the server's cwd, where there is none: nothing is
// set aside. In the person's shell, mise runs with the project as its cwd
// and x/env.sh is the command's env.sh, which it sources.
//
// Control: a new directory with an env.sh, made by the same command, is
// set aside.
func TestAttack154_LauncherGlobThroughProcCwdLink(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"mise.toml": "[env]\n_.source = \"*/env.sh\"\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "mkdir y && echo 'touch "+f.marker+"' > y/env.sh && echo 'touch "+f.marker+"' > env.sh && ln -s /proc/self/cwd x && echo done")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/y/env.sh") {
		t.Fatalf("control: y/env.sh, a new match made by the command, stayed (%+v)", r.Quarantined)
	}
	// What mise, run by the person in the project, reads as x/env.sh.
	cmd := exec.Command("sh", "-c", "cat x/env.sh")
	cmd.Dir = f.ws
	out, _ := cmd.Output()
	if _, err := os.Lstat(f.ws + "/x"); err == nil && strings.Contains(string(out), f.marker) {
		t.Errorf("x -> /proc/self/cwd, made by the command, stayed: run in the project, mise's \"*/env.sh\" matches x/env.sh, the command's %q (set aside: %+v)", out, r.Quarantined)
	}
}

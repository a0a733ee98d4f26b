package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_MiseHookBareScript (review 158, high: host code execution
// when the person's shell, with mise activated, next enters or moves in the
// project). mise runs its [hooks] (enter, cd, leave) in the person's
// shell. miseRefs (launcherparse.go) takes from a hook's words only those
// holding a "/", or, past the first, a "."; a script given by a bare name
// without a dot (`sh bootstrap`, `bash cdhook`, a table's `script =
// "source envsetup"` run by bash) is not taken, and launcherBareRefsOf
// reads bare names for .envrc alone (review 146's fix covered `bash
// setup.sh` in .envrc, not the same line in a mise hook). With none there
// yet, a command writes bootstrap, cdhook and envsetup in the workspace;
// they stay, and mise, whose config is unchanged (and trusted), runs them
// as the person at the next `cd` into the project.
//
// Control: the same hook with a dotted name (`bash boot.sh`) is watched:
// refused to a file tool and set aside after the same command.
func TestAttack158_MiseHookBareScript(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"mise.toml": "[hooks]\n" +
		"enter = [\"bash boot.sh\", \"sh bootstrap\"]\n" +
		"cd = \"bash cdhook\"\n" +
		"leave = { script = \"source envsetup\", shell = \"bash\" }\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	attacks := []string{"bootstrap", "cdhook", "envsetup"}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/boot.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of boot.sh, which a mise hook runs and which does not exist, was allowed")
	}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which a mise hook runs by a bare name and which does not exist, was allowed", n)
		}
	}
	script := "echo 'touch /tmp/pwned' > boot.sh"
	for _, n := range attacks {
		script += "; echo 'touch /tmp/pwned' > " + n
	}
	r := sh(t, s, script+"; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/boot.sh") {
		t.Fatalf("control: boot.sh, which a mise hook runs, made by the command, stayed after the check (quarantined: %+v)", r.Quarantined)
	}
	for _, n := range attacks {
		if exists(f.ws + "/" + n) {
			t.Errorf("%s, which a mise hook runs by a bare name, made by the command, stayed after the check: the person's next cd into the project runs it", n)
		}
	}
}

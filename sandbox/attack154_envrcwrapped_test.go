package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack154_EnvrcWrappedRunWatch (review 154, high: host code
// execution when the person's direnv next loads .envrc). envrcbare.go
// watches a file .envrc runs by a bare name where it does not exist yet
// (bash setup.sh): a file tool may not write it and a command's new one is
// set aside. runsFiles only skips launcherPrefixes (builtin, command,
// exec, nohup, time, env) and stops at the first other word, so a program
// run through a wrapper with arguments, or through a wrapper the list
// lacks, is not seen as run: `env FOO=1 bash boot.sh`, `timeout 60 bash
// init.sh`, `nice -n 5 bash prep.sh`, direnv's own `direnv_load bash
// load.sh`; and a name handed through direnv's expand_path (`source
// "$(expand_path local.sh)"`: a command substitution's value is not read
// as the name it gives, as `$(pwd)/x` is by the line parser). With none of those files there yet, the command writes them,
// they stay, and the person's next `cd` into the workspace (direnv allow
// is on the .envrc, which is unchanged) runs the agent's code as the
// person, outside any sandbox.
//
// Control: the same line without the wrapper (bash setup.sh) is watched:
// refused to a file tool, set aside after the same command.
func TestAttack154_EnvrcWrappedRunWatch(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "bash setup.sh\n" +
		"env PROJECT=demo bash boot.sh\n" +
		"timeout 60 bash init.sh\n" +
		"nice -n 5 bash prep.sh\n" +
		"direnv_load bash load.sh\n" +
		"source \"$(expand_path local.sh)\"\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	attacks := []string{"boot.sh", "init.sh", "prep.sh", "load.sh", "local.sh"}
	// Control: setup.sh, run plainly, is refused to a file tool.
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/setup.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of setup.sh, which .envrc runs and which does not exist, was allowed")
	}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which .envrc runs through a wrapper and which does not exist, was allowed", n)
		}
	}
	script := "echo 'touch /tmp/pwned' > setup.sh"
	for _, n := range attacks {
		script += "; echo 'touch /tmp/pwned' > " + n
	}
	r := sh(t, s, script+"; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/setup.sh") {
		t.Fatalf("control: setup.sh, which .envrc runs, made by the command, stayed after the check (quarantined: %+v)", r.Quarantined)
	}
	for _, n := range attacks {
		if exists(f.ws + "/" + n) {
			t.Errorf("%s, which .envrc runs through a wrapper, made by the command, stayed after the check: the person's next direnv runs it", n)
		}
	}
}

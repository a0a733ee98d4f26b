package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack159_MiseWatchFilesRun (review 159, high: host code execution
// at the person's next shell prompt in the project). mise's
// `[[watch_files]]` hooks (src/watch_files.rs: patterns, run, task) run
// their `run` script in the person's shell, from `mise activate`'s
// hook-env at a prompt, when a file matching `patterns` changed. miseRefs
// and miseHookScripts (launcherparse.go) read [env], [hooks] and [tools]
// only: the script a watch_files hook runs (`run = "bash
// scripts/sync.sh"`) is neither kept read-only nor watched. A command
// appends to scripts/sync.sh and touches uv.lock (the watched pattern);
// mise.toml is unchanged (still trusted), and the person's next prompt in
// the project runs the agent's code outside any sandbox.
//
// Control: the same script line as an [hooks] enter script
// (scripts/enter.sh) in the same mise.toml is kept read-only: refused to a
// file tool and not rewritten by the same command.
func TestAttack159_MiseWatchFilesRun(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"mise.toml": "[hooks]\nenter = \"bash scripts/enter.sh\"\n\n" +
			"[[watch_files]]\npatterns = [\"uv.lock\"]\nrun = \"bash scripts/sync.sh\"\n",
		"scripts/enter.sh": "echo entered\n",
		"scripts/sync.sh":  "uv sync\n",
		"uv.lock":          "version = 1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/enter.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of scripts/enter.sh, which a mise [hooks] enter script runs, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/sync.sh", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of scripts/sync.sh, which a mise [[watch_files]] hook runs at the person's next prompt, was allowed")
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> scripts/enter.sh; echo 'touch /tmp/pwned' >> scripts/sync.sh; echo >> uv.lock; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/enter.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/enter.sh, a mise [hooks] script, was rewritten by the command")
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/sync.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("scripts/sync.sh, which mise's [[watch_files]] hook runs when uv.lock changes, was rewritten by the command: %q", b)
	}
}

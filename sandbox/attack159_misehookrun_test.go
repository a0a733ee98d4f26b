package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack159_MiseHookRunField (review 159, high: host code execution at
// the person's next `cd` into the project with mise activated). mise's
// hooks take an explicit inline-command form, `enter = { run = "…" }`
// (jdx/mise#9718: "Add { run = \"...\" } as the explicit inline-command
// hook form for all hook types", the string form being its shorthand),
// beside the older `{ script = "…", shell = "bash" }`. miseRefs reads a
// hook table's path, script and version, and miseHookScripts its script
// (launcherparse.go): a table's run is read by neither. So the script a
// `{ run = "bash scripts/enter.sh" }` hook runs is not kept read-only, and
// a bare name it runs (`sh bootstrap`), missing, is not watched: a command
// appends to the one and makes the other, and mise, whose config is
// unchanged and trusted, runs both as the person at the next `cd`.
//
// Control: the same line in the script form (`cd = { script = "bash
// scripts/cd.sh" }`) in the same mise.toml keeps its script read-only.
func TestAttack159_MiseHookRunField(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"mise.toml": "[hooks]\n" +
			"cd = { script = \"bash scripts/cd.sh\", shell = \"bash\" }\n" +
			"enter = { run = \"bash scripts/enter.sh\" }\n" +
			"leave = { run = \"sh bootstrap\" }\n",
		"scripts/cd.sh":    "echo cd\n",
		"scripts/enter.sh": "echo enter\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/cd.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of scripts/cd.sh, which a mise hook's script runs, was allowed")
	}
	for _, n := range []string{"scripts/enter.sh", "bootstrap"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which a mise hook's { run = … } runs, was allowed", n)
		}
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> scripts/cd.sh; echo 'touch /tmp/pwned' >> scripts/enter.sh; echo 'touch /tmp/pwned' > bootstrap; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/cd.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/cd.sh, a mise hook's script, was rewritten by the command")
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/enter.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("scripts/enter.sh, which a mise hook's { run = … } runs, was rewritten by the command: %q", b)
	}
	if exists(f.ws + "/bootstrap") {
		t.Errorf("bootstrap, which a mise hook's { run = \"sh bootstrap\" } runs, made by the command, stayed after the check")
	}
}

package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack172_InterpreterResolvedNames (the hundred-and-seventy-second
// review's note, tested): a launcher file that runs a script through an
// interpreter that adds the extension (`node scripts/setup` loads
// scripts/setup.js; ts-node, tsx and bun try .ts and the others) named a
// path the readers kept as written: scripts/setup, which does not exist.
// The file that runs, scripts/setup.js, was writable, and one the command
// made for a name that resolves to nothing yet (scripts/boot.js for `node
// scripts/boot`) stayed: the person's next direnv ran the agent's code.
//
// Controls: a script .envrc runs by its own name (scripts/run.sh) is kept
// as before; a file nothing names (scripts/other.js) is the command's to
// write and to make.
func TestAttack172_InterpreterResolvedNames(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":             "node scripts/setup\nnode scripts/boot\nsource scripts/run.sh\n",
		"scripts/setup.js":   "console.log('setup')\n",
		"scripts/run.sh":     "echo run\n",
		"scripts/other.js":   "console.log('other')\n",
		"scripts/README.txt": "scripts\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/run.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of scripts/run.sh, which .envrc sources, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/other.js", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a write of scripts/other.js, which nothing names, was refused: %v", err)
	}
	for _, n := range []string{"scripts/setup.js", "scripts/boot.js", "scripts/boot.ts"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which `node scripts/...` in .envrc loads, was allowed", n)
		}
	}
	r := sh(t, s, "cd scripts; echo pwned >> setup.js; echo pwned > boot.js; echo mine >> other.js; echo mine > new.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/scripts/setup.js"), "pwned") {
		t.Errorf("the command wrote scripts/setup.js, which `node scripts/setup` in .envrc runs")
	}
	if exists(f.ws + "/scripts/boot.js") {
		t.Errorf("scripts/boot.js, which `node scripts/boot` in .envrc would run, made by the command, stayed after the check (set aside: %+v)", r.Quarantined)
	}
	if !strings.Contains(readFile(t, f.ws+"/scripts/other.js"), "mine") || !exists(f.ws+"/scripts/new.js") {
		t.Errorf("control: the command could not write scripts/other.js or make scripts/new.js, which nothing names (set aside: %+v)", r.Quarantined)
	}
}

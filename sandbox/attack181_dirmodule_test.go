package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack181DirectoryModuleShadowed: review 181, launcherRef
// (4997374e). The extensions an interpreter adds are watched only for a
// name that is missing. Where the name is a directory (`node scripts/setup`
// in .envrc, with scripts/setup/index.js: a directory module) the
// directory is kept read-only whole and nothing else: but node's resolution
// of a name that is not a file (Module._findPath) tries the extensions
// before the directory (scripts/setup.js, .json, .node, then
// scripts/setup/package.json's main and index.js), and so do tsx, ts-node
// and bun. A scripts/setup.js the agent makes beside the directory is what
// the person's next direnv runs: a file tool may write it, and a command's
// one stays.
//
// Control: scripts/setup/index.js stays read-only; a missing name's
// scripts/boot.js (`node scripts/boot`) is refused and set aside; a file
// nothing names (scripts/other.js) is the command's.
func TestAttack181DirectoryModuleShadowed(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":                 "node scripts/setup\nnode scripts/boot\n",
		"scripts/setup/index.js": "console.log('setup')\n",
		"scripts/other.js":       "console.log('other')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	write := func(n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	if write("scripts/setup/index.js") == nil || write("scripts/boot.js") == nil {
		t.Fatalf("control: a write of scripts/setup/index.js or scripts/boot.js, which .envrc runs, was allowed")
	}
	if err := write("scripts/other.js"); err != nil {
		t.Fatalf("control: a write of scripts/other.js, which nothing names, was refused: %v", err)
	}
	if write("scripts/setup.js") == nil {
		t.Errorf("a file tool's write of scripts/setup.js, which node loads for `node scripts/setup` before the directory scripts/setup/, was allowed")
	}
	r := sh(t, s, "echo pwned > scripts/boot.js; echo pwned > scripts/setup.js; echo mine > scripts/new.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws+"/scripts/boot.js") || !exists(f.ws+"/scripts/new.js") {
		t.Fatalf("control: scripts/boot.js stayed, or scripts/new.js was not made (set aside: %+v)", r.Quarantined)
	}
	if exists(f.ws + "/scripts/setup.js") {
		t.Errorf("scripts/setup.js, made by the command beside the directory scripts/setup/, stayed: `node scripts/setup` in .envrc runs it (set aside: %+v)", r.Quarantined)
	}
}

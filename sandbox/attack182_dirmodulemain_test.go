package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack182DirectoryModuleMainOutside: review 182, launcherRef's
// directory module (8ddc51a6). For `node lib` where lib is a directory,
// the directory is kept read-only whole and the extensions beside it are
// watched; what node runs is lib/package.json's "main", resolved against
// lib (Module's tryPackage: path.resolve(lib, main)), which may lie
// outside it: a package whose main is "../boot/start.js" (a workspace
// package pointing at a shared entry) runs boot/start.js, left writable by
// a file tool and by a command. The person's next direnv ran the agent's
// boot/start.js outside the sandbox. Fixed: a directory a launcher file
// runs is also read as a module (dirModule), its main followed.
//
// Control: lib/package.json stays read-only; other.js, which nothing
// names, is writable.
func TestAttack182DirectoryModuleMainOutside(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":           "node lib\n",
		"lib/package.json": `{"name": "lib", "main": "../boot/start.js"}` + "\n",
		"boot/start.js":    "console.log('start')\n",
		"other.js":         "console.log('other')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	write := func(n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	if write("lib/package.json") == nil {
		t.Fatalf("control: a write of lib/package.json, in the directory `node lib` runs, was allowed")
	}
	if err := write("other.js"); err != nil {
		t.Fatalf("control: a write of other.js, which nothing names, was refused: %v", err)
	}
	if write("boot/start.js") == nil {
		t.Errorf("a file tool's write of boot/start.js, lib/package.json's main, which `node lib` in .envrc runs, was allowed")
	}
	r := sh(t, s, "echo pwned >> boot/start.js; echo mine >> other.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if !strings.Contains(readFile(t, f.ws+"/other.js"), "mine") {
		t.Fatalf("control: the command could not write other.js (%s)", r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/boot/start.js"), "pwned") {
		t.Errorf("the command wrote boot/start.js, which `node lib` in .envrc runs (lib/package.json's main)")
	}
}

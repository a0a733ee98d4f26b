package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack181DotDotResolvedName: review 181, launcherRef (review 172's
// fix, 4997374e). The extensions an interpreter adds are watched only when
// launcherPath(cp) reports the name missing; it reports "exists" for a path
// it has seen already. A name written with ".." (a nested .envrc's
// `node ../scripts/up`, a monorepo package's reference to the top's
// scripts) is first looked up by dotDotWay's kernel way, which is the same
// clean path: the second lookup is "seen", so scripts/up.js, which node
// loads for `node ../scripts/up`, is neither kept nor watched. A file tool
// writes it, and a command makes it and it stays: the person's next direnv
// in sub/ runs the agent's code.
//
// Control: the same name written without ".." (`node scripts/boot` in the
// top .envrc) has scripts/boot.js refused and set aside; a file nothing
// names (scripts/other.js) is writable and made.
func TestAttack181DotDotResolvedName(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":           "node scripts/boot\n",
		"sub/.envrc":       "node ../scripts/up\n",
		"scripts/other.js": "console.log('other')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	write := func(n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	if write("scripts/boot.js") == nil {
		t.Fatalf("control: a write of scripts/boot.js, which `node scripts/boot` in .envrc loads, was allowed")
	}
	if err := write("scripts/other.js"); err != nil {
		t.Fatalf("control: a write of scripts/other.js, which nothing names, was refused: %v", err)
	}
	if write("scripts/up.js") == nil {
		t.Errorf("a file tool's write of scripts/up.js, which `node ../scripts/up` in sub/.envrc loads, was allowed")
	}
	r := sh(t, s, "echo pwned > scripts/boot.js; echo pwned > scripts/up.js; echo mine > scripts/new.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/scripts/boot.js") {
		t.Fatalf("control: scripts/boot.js, made by the command, stayed (set aside: %+v)", r.Quarantined)
	}
	if !exists(f.ws + "/scripts/new.js") {
		t.Fatalf("control: scripts/new.js, which nothing names, was not made (set aside: %+v)", r.Quarantined)
	}
	if exists(f.ws + "/scripts/up.js") {
		t.Errorf("scripts/up.js, which `node ../scripts/up` in sub/.envrc would run, made by the command, stayed after the check (set aside: %+v)", r.Quarantined)
	}
}

// TestAttack181DottedResolvedName: review 181, launcherRef (4997374e). The
// extensions are tried only for a missing name with no dot in its last
// element. Node (Module._findPath), ts-node, tsx and bun add them to any
// name that is not there: `node scripts/seed.dev` loads
// scripts/seed.dev.js. That file is writable by a file tool and, made by a
// command, stays.
//
// Control: `node scripts/seed` has scripts/seed.js refused and set aside;
// scripts/other.js is writable.
func TestAttack181DottedResolvedName(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":           "node scripts/seed\nnode scripts/seed.dev\n",
		"scripts/other.js": "console.log('other')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	write := func(n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	if write("scripts/seed.js") == nil {
		t.Fatalf("control: a write of scripts/seed.js, which `node scripts/seed` loads, was allowed")
	}
	if err := write("scripts/other.js"); err != nil {
		t.Fatalf("control: a write of scripts/other.js, which nothing names, was refused: %v", err)
	}
	if write("scripts/seed.dev.js") == nil {
		t.Errorf("a file tool's write of scripts/seed.dev.js, which `node scripts/seed.dev` in .envrc loads, was allowed")
	}
	r := sh(t, s, "echo pwned > scripts/seed.js; echo pwned > scripts/seed.dev.js; echo mine > scripts/new.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws+"/scripts/seed.js") || !exists(f.ws+"/scripts/new.js") {
		t.Fatalf("control: scripts/seed.js stayed or scripts/new.js was not made (set aside: %+v)", r.Quarantined)
	}
	if exists(f.ws + "/scripts/seed.dev.js") {
		t.Errorf("scripts/seed.dev.js, which `node scripts/seed.dev` in .envrc would run, made by the command, stayed after the check (set aside: %+v)", r.Quarantined)
	}
}

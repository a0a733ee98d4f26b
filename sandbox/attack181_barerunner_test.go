package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack181BareNameTSRunner: review 181, 4997374e with the bare-name
// readers (launcherbare.go, envrcbare.go). A bare name (no "/") a .envrc
// gives is kept only where it exists, unless the word before it is one of
// launcherRuns (node, python, bash…: then it is watched missing and, since
// 4997374e, with the extensions). The runners the commit names as adding
// extensions (tsx, ts-node, bun) are not in launcherRuns: for `tsx setup`
// the name "setup" does not exist, so nothing is kept, and setup.ts, the
// file tsx runs, existing, is writable by a file tool and by a command;
// one the command makes for `tsx seed` (seed.ts) stays.
//
// Control: `node boot` with boot.js keeps boot.js read-only; other.ts,
// which nothing names, is writable.
func TestAttack181BareNameTSRunner(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":   "node boot\ntsx setup\nts-node seed\n",
		"boot.js":  "console.log('boot')\n",
		"setup.ts": "console.log('setup')\n",
		"other.ts": "console.log('other')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	write := func(n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	if write("boot.js") == nil {
		t.Fatalf("control: a write of boot.js, which `node boot` in .envrc runs, was allowed")
	}
	if err := write("other.ts"); err != nil {
		t.Fatalf("control: a write of other.ts, which nothing names, was refused: %v", err)
	}
	if write("setup.ts") == nil {
		t.Errorf("a file tool's write of setup.ts, which `tsx setup` in .envrc runs, was allowed")
	}
	r := sh(t, s, "echo pwned >> boot.js; echo pwned >> setup.ts; echo pwned > seed.ts; echo mine >> other.ts; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/boot.js"), "pwned") {
		t.Fatalf("control: the command wrote boot.js")
	}
	if !strings.Contains(readFile(t, f.ws+"/other.ts"), "mine") {
		t.Fatalf("control: the command could not write other.ts (%s)", r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/setup.ts"), "pwned") {
		t.Errorf("the command wrote setup.ts, which `tsx setup` in .envrc runs")
	}
	if exists(f.ws + "/seed.ts") {
		t.Errorf("seed.ts, which `ts-node seed` in .envrc would run, made by the command, stayed (set aside: %+v)", r.Quarantined)
	}
}

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack182NestedPersonsEnvrcBoundPushed: review 182, 8ddc51a6's
// order of launcher files (protectLauncherRefs). The launcher files a
// walk finds deeper are read last, after the person's carve-outs, those
// above the roots and VS Code's, so an agent's nested .envrc no longer
// spends maxResolvedNames before those. But the person's own nested
// .envrc (sub/.envrc, allowed with direnv: the person's next `cd sub`
// runs it) is one of the walk-found files too, read in the walk's order
// with the agent's: a/.envrc, which a file tool may write (direnv runs it
// only once allowed), sorts first. Naming 501 missing names there spends
// the bound, and `node boot` in the person's sub/.envrc (boot.js: node
// adds the extension) is past it: sub/boot.js is writable by a file tool
// and by a command, and the person's next direnv in sub runs the agent's
// code.
//
// Control: the workspace without a/.envrc keeps sub/boot.js read-only (a
// file tool's write refused, the command's write fails); with it, a file
// nothing names (sub/other.js) is writable.
func TestAttack182NestedPersonsEnvrcBoundPushed(t *testing.T) {
	files := map[string]string{
		"sub/.envrc":   "node boot\n",
		"sub/boot.js":  "console.log('boot')\n",
		"sub/other.js": "console.log('other')\n",
		"a/keep.txt":   "x\n",
	}
	write := func(s *domain.TurnExecutionSecuritySnapshot, ws, n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	c := newPlantFixture(t)
	mkfiles(t, c.ws, files)
	cs := snapshotFor(t, domain.ModeAutoAcceptEdits, c.ws, machine().Kernel)
	if write(cs, c.ws, "sub/boot.js") == nil {
		t.Fatalf("control: a write of sub/boot.js, which `node boot` in sub/.envrc runs, was allowed")
	}
	if err := write(cs, c.ws, "a/.envrc"); err != nil {
		t.Fatalf("premise: a file tool's write of a/.envrc was refused: %v", err)
	}
	r := sh(t, cs, "echo pwned >> sub/boot.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") || strings.Contains(readFile(t, c.ws+"/sub/boot.js"), "pwned") {
		t.Fatalf("control: the command wrote sub/boot.js or did not run: %s %s", r.Stdout, r.Stderr)
	}
	var b strings.Builder
	for i := range 501 {
		fmt.Fprintf(&b, "node n%d\n", i)
	}
	f := newPlantFixture(t)
	mkfiles(t, f.ws, files)
	if err := os.WriteFile(f.ws+"/a/.envrc", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if err := write(s, f.ws, "sub/other.js"); err != nil {
		t.Fatalf("control: with a/.envrc, a write of sub/other.js was refused: %v", err)
	}
	if write(s, f.ws, "sub/boot.js") == nil {
		t.Errorf("with the agent's a/.envrc naming 501 missing names, a file tool's write of sub/boot.js, which the person's sub/.envrc runs (`node boot`), was allowed")
	}
	r = sh(t, s, "echo pwned >> sub/boot.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/sub/boot.js"), "pwned") {
		t.Errorf("with the agent's a/.envrc, the command wrote sub/boot.js, which the person's sub/.envrc runs (check limits: %v)", r.CheckLimits)
	}
}

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack181ResolvedNamesBoundPushed: review 181, maxResolvedNames
// (4997374e). The 500 missing names watched with an interpreter's
// extensions are counted across every launcher file a view reads, in the
// order it reads them: the read-only carve-outs, then the launcher files
// the walk found deeper that are writable (a nested .envrc: a file tool
// may write one, direnv runs it only once the person allows it), then
// those above the roots and VS Code's tasks. Past the bound the rest go
// unwatched, "a check limit, not a refusal". So the agent writes
// a/.envrc (harmless itself) naming 501 missing names; the next view
// spends the bound on them before it reads the person's
// .vscode/tasks.json, whose folder-open task runs `node scripts/setup`:
// scripts/setup.js is then writable by a file tool (the decision's view;
// the command's sandbox kept it read-only when this was written, and the
// test checks it too), and the person's next VS Code start runs the
// agent's code. A view's walk finds the new a/.envrc within walkTTL (2s):
// the test plants it in a second workspace rather than waiting.
//
// Control: the view before a/.envrc keeps scripts/setup.js read-only (a
// file tool's write refused, the command's write fails); after it, a file
// nothing names (scripts/other.js) is writable in both.
func TestAttack181ResolvedNamesBoundPushed(t *testing.T) {
	files := map[string]string{
		".vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "setup", "type": "shell", "command": "node scripts/setup", "runOptions": {"runOn": "folderOpen"}}]}` + "\n",
		"scripts/setup.js":   "console.log('setup')\n",
		"scripts/other.js":   "console.log('other')\n",
		"a/keep.txt":         "x\n",
	}
	// Control: the workspace as the person left it.
	c := newPlantFixture(t)
	mkfiles(t, c.ws, files)
	cs := snapshotFor(t, domain.ModeAutoAcceptEdits, c.ws, machine().Kernel)
	write := func(s *domain.TurnExecutionSecuritySnapshot, ws, n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	if write(cs, c.ws, "scripts/setup.js") == nil {
		t.Fatalf("control: a write of scripts/setup.js, which the folder-open task runs, was allowed")
	}
	if err := write(cs, c.ws, "scripts/other.js"); err != nil {
		t.Fatalf("control: a write of scripts/other.js, which nothing names, was refused: %v", err)
	}
	if err := write(cs, c.ws, "a/.envrc"); err != nil {
		t.Fatalf("premise: a file tool's write of a/.envrc was refused: %v", err)
	}
	r := sh(t, cs, "echo pwned >> scripts/setup.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") || strings.Contains(readFile(t, c.ws+"/scripts/setup.js"), "pwned") {
		t.Fatalf("control: the command wrote scripts/setup.js or did not run: %s %s", r.Stdout, r.Stderr)
	}
	// The same workspace once the agent's file tool wrote a/.envrc (the
	// walk finds it within walkTTL).
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
	if err := write(s, f.ws, "scripts/other.js"); err != nil {
		t.Fatalf("control: with a/.envrc, a write of scripts/other.js was refused: %v", err)
	}
	if write(s, f.ws, "scripts/setup.js") == nil {
		t.Errorf("with the agent's a/.envrc naming 501 missing names, a file tool's write of scripts/setup.js, which the folder-open task runs, was allowed")
	}
	r = sh(t, s, "echo pwned >> scripts/setup.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/scripts/setup.js"), "pwned") {
		t.Errorf("with the agent's a/.envrc, the command wrote scripts/setup.js, which the folder-open task runs (check limits: %v)", r.CheckLimits)
	}
}

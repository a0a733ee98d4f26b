package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack185DirModuleSeenBeforeSpent: review 185, dirModule. A
// directory module is marked looked at (d.seen["dirmodule:"+dir]) before
// its share is spent (spendResolved); where the share of the launcher file
// reading it is spent, it returns with nothing kept, and every later
// launcher file that runs the same directory as a module skips it. The
// per-file share (review 182) is meant to keep an agent's nested launcher
// file from spending the person's; here it still can: the agent's
// a/.envrc (a file tool may write it; direnv runs it only once allowed,
// and the walk reads it before the person's sub/.envrc, sorted first)
// names 98 missing names, then `node ../svc/x`, where svc/x/package.json
// (the agent's) has "main": "..": its 99th and 100th names are
// ../svc/x and that directory's module, and the 101st, the module svc
// its main names, is marked and dropped. The person's svc/.envrc runs
// `node .` (svc/package.json's main, server.js): both are writable by a
// file tool and by a command, and the person's next direnv in svc runs
// the agent's server.js.
//
// Control: the same workspace without the agent's files keeps
// svc/server.js and svc/package.json read-only; with them, svc/other.js,
// which nothing runs, is writable.
func TestAttack185DirModuleSeenBeforeSpent(t *testing.T) {
	files := map[string]string{
		"svc/.envrc":       "node .\n",
		"svc/package.json": `{"name": "svc", "main": "server.js"}` + "\n",
		"svc/server.js":    "console.log('server')\n",
		"svc/other.js":     "console.log('other')\n",
		"a/keep.txt":       "x\n",
	}
	c := newPlantFixture(t)
	mkfiles(t, c.ws, files)
	cs := snapshotFor(t, domain.ModeAutoAcceptEdits, c.ws, machine().Kernel)
	for _, n := range []string{"svc/server.js", "svc/package.json"} {
		if writeAllowed(t, cs, c.ws+"/"+n) {
			t.Fatalf("control: a write of %s, which `node .` in svc/.envrc runs, was allowed", n)
		}
	}
	for _, n := range []string{"a/.envrc", "svc/x/package.json"} {
		if !writeAllowed(t, cs, c.ws+"/"+n) {
			t.Fatalf("premise: a file tool's write of %s was refused", n)
		}
	}
	r := sh(t, cs, "echo pwned >> svc/server.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") || strings.Contains(readFile(t, c.ws+"/svc/server.js"), "pwned") {
		t.Fatalf("control: the command wrote svc/server.js or did not run: %s %s", r.Stdout, r.Stderr)
	}

	var b strings.Builder
	b.WriteString("node")
	for i := range 98 {
		fmt.Fprintf(&b, " ./n%d", i)
	}
	b.WriteString("\nnode ../svc/x\n")
	f := newPlantFixture(t)
	mkfiles(t, f.ws, files)
	mkfiles(t, f.ws, map[string]string{"svc/x/package.json": `{"main": ".."}` + "\n"})
	if err := os.WriteFile(f.ws+"/a/.envrc", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/svc/other.js") {
		t.Fatalf("control: with the agent's files, a write of svc/other.js, which nothing runs, was refused")
	}
	for _, n := range []string{"svc/server.js", "svc/package.json"} {
		if writeAllowed(t, s, f.ws+"/"+n) {
			t.Errorf("with the agent's a/.envrc, a file tool's write of %s, which the person's svc/.envrc runs (`node .`), was allowed", n)
		}
	}
	r = sh(t, s, "echo pwned >> svc/server.js; echo mine >> svc/other.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFile(t, f.ws+"/svc/other.js"), "mine") {
		t.Fatalf("premise: the command did not run or could not write svc/other.js: %d %s", r.ExitCode, r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/svc/server.js"), "pwned") {
		t.Errorf("with the agent's a/.envrc, the command wrote svc/server.js, which the person's svc/.envrc runs (check limits: %v)", r.CheckLimits)
	}
}

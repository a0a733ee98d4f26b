package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack182NodeDotMain: review 182, the names an interpreter resolves
// (launcherRef, keepBare). `node .` (and tsx ., bun .) runs the directory
// module the current directory is: its package.json "main" (here
// server.js), or index.js. keepBare dropped "." as no file, so nothing
// `node .` in .envrc runs was kept: package.json and server.js stayed
// writable by a file tool and by a command, and the person's next direnv
// ran the agent's server.js outside the sandbox. Fixed: the directory's
// module files are kept (dirmodule.go), not the directory whole.
//
// Control: `node app` in the same .envrc keeps app.js read-only and a
// command's write of it does not stay; other.js, which nothing names, is
// writable.
func TestAttack182NodeDotMain(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":       "node app\nnode .\n",
		"package.json": `{"name": "svc", "main": "server.js"}` + "\n",
		"server.js":    "console.log('server')\n",
		"app.js":       "console.log('app')\n",
		"other.js":     "console.log('other')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	write := func(n string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false)
		return err
	}
	if write("app.js") == nil {
		t.Fatalf("control: a write of app.js, which `node app` in .envrc runs, was allowed")
	}
	if err := write("other.js"); err != nil {
		t.Fatalf("control: a write of other.js, which nothing names, was refused: %v", err)
	}
	if write("server.js") == nil {
		t.Errorf("a file tool's write of server.js, package.json's main, which `node .` in .envrc runs, was allowed")
	}
	if write("package.json") == nil {
		t.Errorf("a file tool's write of package.json, whose main `node .` in .envrc runs, was allowed")
	}
	r := sh(t, s, "echo pwned >> app.js; echo pwned >> server.js; echo mine >> other.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/app.js"), "pwned") {
		t.Fatalf("control: the command wrote app.js")
	}
	if !strings.Contains(readFile(t, f.ws+"/other.js"), "mine") {
		t.Fatalf("control: the command could not write other.js (%s)", r.Stderr)
	}
	if strings.Contains(readFile(t, f.ws+"/server.js"), "pwned") {
		t.Errorf("the command wrote server.js, which `node .` in .envrc runs")
	}
}

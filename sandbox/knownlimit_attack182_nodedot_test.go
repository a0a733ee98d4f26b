//go:build knownlimits

package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack182NodeDotMain: review 182, the names an interpreter resolves
// (launcherRef, keepBare). `node .` (and tsx ., bun .) runs the directory
// module the current directory is: its package.json "main" (here
// server.js), or index.js. keepBare drops "." as no file, so nothing `node
// .` in .envrc runs is kept: package.json and server.js stay writable by a
// file tool and by a command, and the person's next direnv runs the
// agent's server.js outside the sandbox.
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

// TestAttack182NodeDotSlashWholeRoot: review 182, the same name written
// "./" (`node ./`, `tsx ./`): a name with a "/" is read as a path, and the
// directory it names, the launcher file's own, the workspace itself, is
// kept read-only whole: every file of the project the person edits is
// refused to the agent (a false protection that stops ordinary work).
//
// Control: the same workspace with `node ./app` keeps app.js read-only and
// other.js writable.
func TestAttack182NodeDotSlashWholeRoot(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{{"node ./app\n", true}, {"node ./\n", false}} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":       c.envrc,
			"package.json": `{"name": "svc", "main": "app.js"}` + "\n",
			"app.js":       "console.log('app')\n",
			"src/other.js": "console.log('other')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/src/other.js", domain.AccessWrite, false)
		_, errApp := (DecisionChecker{}).ResolveFile(s, f.ws+"/app.js", domain.AccessWrite, false)
		if c.control {
			if err != nil || errApp == nil {
				t.Fatalf("control: with %q src/other.js writable=%v, app.js writable=%v", c.envrc, err == nil, errApp == nil)
			}
			continue
		}
		if err != nil {
			t.Errorf("with %q in .envrc, a write of src/other.js, a file of the project nothing runs, was refused: %v", c.envrc, err)
		}
	}
}

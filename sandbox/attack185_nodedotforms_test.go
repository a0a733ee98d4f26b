package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack185NodeDirectoryForms: review 185, dirmodule.go's wiring
// (envrcWordsWith). The directory module an interpreter runs is recorded
// only where the interpreter's argument reads literally as "." or ".."
// and the interpreter itself names the call (a[k-1] a moduleRunner). But
// direnv runs .envrc in its own directory, so `node "$PWD"` is `node .`
// (the line parser reads $PWD as "." for every other name: envrcPWD);
// `node "$(git rev-parse --show-toplevel)"` runs the repository's top,
// which `cd "$(git rev-parse --show-toplevel)"; node .` is watched for
// (moduleDirRef's gitTopMark branch); and a function that runs node
// (serve() { node "$@"; }; serve .) is a runner for every other name
// (funcRunners), yet its "." is dropped (keepBare) and not read as a
// module: package.json and its main (server.js) stay writable by a file
// tool and by a command, and the person's next direnv runs the agent's
// server.js outside the sandbox.
//
// Control: the same project with `node .` keeps server.js and
// package.json; other.js, which nothing runs, is writable in each.
func TestAttack185NodeDirectoryForms(t *testing.T) {
	for _, c := range []struct{ envrc string }{
		{"node .\n"}, // control
		{"node \"$PWD\"\n"},
		{"node \"$(git rev-parse --show-toplevel)\"\n"},
		{"serve() { node \"$@\"; }\nserve .\n"},
	} {
		control := c.envrc == "node .\n"
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":       c.envrc,
			"package.json": `{"name": "svc", "main": "server.js"}` + "\n",
			"server.js":    "console.log('server')\n",
			"other.js":     "console.log('other')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/other.js") {
			t.Fatalf("control (%q): a write of other.js, which nothing runs, was refused", c.envrc)
		}
		for _, n := range []string{"server.js", "package.json"} {
			if writeAllowed(t, s, f.ws+"/"+n) {
				if control {
					t.Fatalf("control: a write of %s was allowed under `node .`", n)
				}
				t.Errorf("%q in .envrc runs the project as a module, yet a file tool's write of %s was allowed", c.envrc, n)
			}
		}
		r := sh(t, s, "echo pwned >> server.js; echo mine >> other.js; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFile(t, f.ws+"/other.js"), "mine") {
			t.Fatalf("premise (%q): the command did not run or could not write other.js: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if strings.Contains(readFile(t, f.ws+"/server.js"), "pwned") {
			if control {
				t.Fatalf("control: the command wrote server.js under `node .`")
			}
			t.Errorf("%q in .envrc runs server.js (package.json's main), yet the command's write of it stayed", c.envrc)
		}
	}
}

package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack190NodeOptionValueHidesDot: review 190, dirmodule.go
// (scriptArg). scriptArg skips the value of a short list of node options
// (-r, --require, --import, --title…) and takes the first other word not
// starting with "-" for the script node runs. node takes many more of its
// options' values as the next word: --disable-warning, --inspect-port,
// --unhandled-rejections, --redirect-warnings, --watch-path,
// --dns-result-order, --heapsnapshot-signal, --report-dir… (verified
// here with node 20: `node --inspect-port 9229 .` runs index.js). Their
// value is read as the script, the "." after it is not seen as the
// directory node runs as a module, and the project's package.json, its
// main and its index files, which `node .` keeps read-only, stay writable
// (keepBare drops the bare "."): the agent rewrites index.js and the
// person's next direnv runs it outside the sandbox.
//
// Control: `node .` and the same option written with "="
// (`node --inspect-port=9229 .`) have index.js refused to a write
// decision and a command's rewrite of it fail; src/other.js, which
// nothing runs, stays writable.
func TestAttack190NodeOptionValueHidesDot(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "node .\n", control: true},
		{envrc: "node --inspect-port=9229 .\n", control: true},
		{envrc: "node --inspect-port 9229 .\n"},
		{envrc: "node --disable-warning ExperimentalWarning .\n"},
		{envrc: "node --unhandled-rejections strict .\n"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":       c.envrc,
			"index.js":     "console.log('honest')\n",
			"src/other.js": "console.log('other')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/src/other.js") {
			t.Fatalf("%q: control: a write of src/other.js, which nothing runs, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/index.js") {
			if c.control {
				t.Fatalf("control %q: a file tool's write of index.js was allowed", c.envrc)
			}
			t.Errorf("%q: a file tool's write of index.js, which the .envrc's node runs, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'console.log(\"pwned\")' > index.js; echo '//mine' >> src/other.js; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/src/other.js"), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/index.js"); got != "console.log('honest')\n" {
			if c.control {
				t.Fatalf("control %q: the command rewrote index.js: %q", c.envrc, got)
			}
			msg := ""
			if _, err := exec.LookPath("node"); err == nil {
				cmd := exec.Command("bash", "-c", strings.TrimSpace(c.envrc))
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `" + strings.TrimSpace(c.envrc) + "` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%q: a command rewrote index.js, which the person's next direnv runs%s", c.envrc, msg)
		}
	}
}

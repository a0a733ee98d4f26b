//go:build knownlimits

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack192NestedLinkInWholeDir: review 192, launcherrefs.go
// (keepDirLinks). A directory a launcher file runs as a module by a name
// below its own directory (`node tools` in .envrc) is kept read-only
// whole, and review 190's fix follows the symlinks among its entries to
// keep their targets too. It reads only the directory's own entries: a
// link one level down (tools/lib/helper.js -> ../../scripts/helper.js, a
// layout of shared code), which tools/index.js requires, leads to a file
// that stays writable to commands and file tools. node reads a required
// link's target (it resolves it to its real path), so the agent rewrites
// scripts/helper.js and the person's next direnv runs it outside the
// sandbox.
//
// Control: the same link placed among tools' own entries
// (tools/helper.js -> ../scripts/helper.js) has its target refused to a
// write decision and a command's rewrite of it fail; scripts/other.js,
// which nothing runs, stays writable.
func TestAttack192NestedLinkInWholeDir(t *testing.T) {
	for _, c := range []struct {
		link, target, req string
		control           bool
	}{
		{link: "tools/helper.js", target: "../scripts/helper.js", req: "./helper", control: true},
		{link: "tools/lib/helper.js", target: "../../scripts/helper.js", req: "./lib/helper"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":            "node tools\n",
			"tools/index.js":    "require('" + c.req + "')\n",
			"tools/lib/util.js": "module.exports = 1\n",
			"scripts/helper.js": "console.log('honest')\n",
			"scripts/other.js":  "console.log('other')\n",
		})
		if err := os.Symlink(c.target, f.ws+"/"+c.link); err != nil {
			t.Fatal(err)
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/scripts/other.js") {
			t.Fatalf("%s: control: a write of scripts/other.js, which nothing runs, was refused", c.link)
		}
		if writeAllowed(t, s, f.ws+"/tools/new.js") {
			t.Fatalf("%s: control: a write in tools/, the directory .envrc runs, was allowed", c.link)
		}
		if writeAllowed(t, s, f.ws+"/scripts/helper.js") {
			if c.control {
				t.Fatalf("control %s: a file tool's write of scripts/helper.js was allowed", c.link)
			}
			t.Errorf("%s: a file tool's write of scripts/helper.js, which `node tools` runs through the link, was allowed", c.link)
		}
		r := sh(t, s, "echo 'console.log(\"pwned\")' > scripts/helper.js; echo '//mine' >> scripts/other.js; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/scripts/other.js"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", c.link, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/scripts/helper.js"); got != "console.log('honest')\n" {
			if c.control {
				t.Fatalf("control %s: the command rewrote scripts/helper.js: %q", c.link, got)
			}
			msg := ""
			if _, err := exec.LookPath("node"); err == nil {
				cmd := exec.Command("bash", "-c", "node tools")
				cmd.Dir = f.ws
				out, _ := cmd.CombinedOutput()
				msg = "; the person's `node tools` prints " + strings.Join(strings.Fields(string(out)), " ")
			}
			t.Errorf("%s: a command rewrote scripts/helper.js, which the .envrc's `node tools` runs%s", c.link, msg)
		}
	}
}

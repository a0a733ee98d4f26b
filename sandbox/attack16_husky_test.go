package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack16HuskyHookScripts (sixteenth attack review): husky 9, the
// hook manager most JavaScript repositories use, sets core.hooksPath to
// .husky/_, whose stubs run .husky/_/h, which runs the script of the
// hook's name one directory up: .husky/pre-commit, the person's hook. The
// hooks path is kept read-only (configRefs), but not the directory the
// stubs run from: a command appended to .husky/pre-commit, and the
// person's next commit ran it. Controls: another file of the work tree is
// written, and so is a .husky/pre-commit where the hooks path is not a
// husky one (.githooks).
func TestAttack16HuskyHookScripts(t *testing.T) {
	f := requireKernel(t, true)
	for _, hooks := range []string{".husky/_", ".githooks"} {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{
			".husky/_/pre-commit": "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n",
			".husky/_/h":          "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\nsh -e \"$s\" \"$@\"\n",
			".husky/pre-commit":   "echo lint\n",
			".githooks/README":    "x\n",
			"src/index.js":        "x\n",
		})
		hostGit(t, ws, "init", "-q")
		hostGit(t, ws, "config", "core.hooksPath", hooks)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		if r := sh(t, s, "echo y >> src/index.js"); r.ExitCode != 0 {
			t.Fatalf("control: src/index.js was not writable: %d %s", r.ExitCode, r.Stderr)
		}
		r := sh(t, s, "echo 'touch "+ws+"/pwned' >> .husky/pre-commit")
		wrote := strings.Contains(readFile(t, ws+"/.husky/pre-commit"), "pwned")
		_, derr := (DecisionChecker{}).ResolveFile(s, ".husky/pre-commit", domain.AccessWrite, false)
		if hooks != ".husky/_" {
			if !wrote || derr != nil {
				t.Errorf("control: with hooks at %s, .husky/pre-commit was not writable: %d %s %v", hooks, r.ExitCode, r.Stderr, derr)
			}
			continue
		}
		if wrote {
			t.Errorf("with hooks at %s, .husky/pre-commit, which husky's stubs run, was written by the command", hooks)
		}
		if derr == nil {
			t.Errorf("a write decision on .husky/pre-commit was allowed")
		}
		for _, n := range []string{".husky/_/pre-commit", ".husky/_/h"} {
			mustDo(t, os.Chmod(ws+"/"+n, 0o755))
		}
		if out, err := hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "x"); exists(ws + "/pwned") {
			t.Errorf("the person's next commit ran the command's hook: %v %s", err, out)
		}
	}
}

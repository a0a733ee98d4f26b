package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack159_MiseToolPostinstall (review 159, medium: host code
// execution when the person next installs the project's tools, `mise
// install`, or mise installs a missing one on its own: auto_install). A
// tool in mise's [tools] may name its own postinstall script (`node = {
// version = "22", postinstall = "bash scripts/post-node.sh" }`, mise's
// "Tool-level postinstall", run right after that tool installs). miseRefs
// (launcherparse.go) reads a [tools] table's path, script and version: the
// postinstall is read neither there nor by miseHookScripts (only [hooks]).
// The script stays writable; a command appends to it; mise.toml is
// unchanged.
//
// Control: the same line as a [hooks] postinstall script in the same
// mise.toml keeps its script (scripts/post.sh) read-only.
func TestAttack159_MiseToolPostinstall(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"mise.toml": "[hooks]\npostinstall = \"bash scripts/post.sh\"\n\n" +
			"[tools]\nnode = { version = \"22\", postinstall = \"bash scripts/post-node.sh\" }\n",
		"scripts/post.sh":      "echo post\n",
		"scripts/post-node.sh": "corepack enable\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/post.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of scripts/post.sh, which mise's [hooks] postinstall runs, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/post-node.sh", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of scripts/post-node.sh, which the node tool's postinstall runs, was allowed")
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> scripts/post.sh; echo 'touch /tmp/pwned' >> scripts/post-node.sh; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/post.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/post.sh, mise's [hooks] postinstall script, was rewritten by the command")
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/post-node.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("scripts/post-node.sh, which the node tool's postinstall runs, was rewritten by the command: %q", b)
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack16ToolVersionsPath (sixteenth attack review): asdf's shims,
// first in the PATH of a person who uses asdf, read .tool-versions in the
// working directory and the directories above it each time the person
// runs a tool they manage (node, python, ruby...), and a version written
// "path:DIR" runs DIR/bin/TOOL (asdf: "a path to custom compiled version
// of a tool to use"; mise reads the file too). It was not protected: a
// command rewrote the person's .tool-versions to name a directory of its
// own, a write decision on it was allowed, and one a command made where
// there was none stayed, so that the person's next node in the workspace
// ran the command's program. Controls: .nvmrc and package.json, which
// name versions only, are written by a command and by a decision.
func TestAttack16ToolVersionsPath(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{".tool-versions": "nodejs 22.11.0\n", ".nvmrc": "22\n", "package.json": "{}\n",
		"sub/README": "x\n"})
	clockPast(t, ws)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{".nvmrc", "package.json"} {
		if r := sh(t, s, "echo ' ' >> "+rel); r.ExitCode != 0 {
			t.Fatalf("control: %s was not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	const line = "nodejs path:" + "/tmp/evil-node"
	sh(t, s, "echo '"+line+"' > .tool-versions")
	if strings.Contains(readFile(t, filepath.Join(ws, ".tool-versions")), "path:") {
		t.Errorf(".tool-versions was written by the command")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ".tool-versions", domain.AccessWrite, false); err == nil {
		t.Errorf("a write decision on .tool-versions was allowed")
	}
	mustDo(t, os.Remove(filepath.Join(ws, ".tool-versions")))
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "echo '"+line+"' > .tool-versions")
	if b, err := os.ReadFile(filepath.Join(ws, ".tool-versions")); err == nil && strings.Contains(string(b), "path:") {
		t.Errorf("a .tool-versions the command made stays: %+v", r.Quarantined)
	}
}

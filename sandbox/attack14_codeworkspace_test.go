package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack14CodeWorkspaceWritable (fourteenth attack review): a VS Code
// workspace file (NAME.code-workspace) holds tasks, one with runOptions
// runOn "folderOpen" included, as .vscode/tasks.json does, and VS Code
// offers to open one it finds at the top of a folder the person opens. The
// protected list keeps .vscode read-only but names no workspace file (the
// name is the person's): an auto_accept_edits command rewrote the person's
// project.code-workspace with a folderOpen task, a write decision on it was
// allowed, and a new one a command made stayed. Controls: another file at
// the top, and a workspace file below it (an example in a subdirectory),
// are written by a command and by a decision.
func TestAttack14CodeWorkspaceWritable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{
		"project.code-workspace":       `{"folders":[{"path":"."}]}` + "\n",
		"settings.json":                "{}\n",
		"examples/demo.code-workspace": `{"folders":[{"path":"."}]}` + "\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{"settings.json", "examples/demo.code-workspace"} {
		if r := sh(t, s, "echo '{}' > "+rel); r.ExitCode != 0 || len(r.Quarantined) > 0 {
			t.Fatalf("control: %s was not writable: %d %s %+v", rel, r.ExitCode, r.Stderr, r.Quarantined)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	task := `{"folders":[{"path":"."}],"tasks":{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"id > /tmp/pwned","runOptions":{"runOn":"folderOpen"}}]}}`
	var bad []string
	sh(t, s, "cat > project.code-workspace <<'EOF'\n"+task+"\nEOF")
	if b, _ := os.ReadFile(filepath.Join(ws, "project.code-workspace")); strings.Contains(string(b), "folderOpen") {
		bad = append(bad, "the person's project.code-workspace was rewritten by a command")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, "project.code-workspace", domain.AccessWrite, false); err == nil {
		bad = append(bad, "a write decision on project.code-workspace was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, "new.code-workspace", domain.AccessWrite, false); err == nil {
		bad = append(bad, "a write decision on a new new.code-workspace was allowed")
	}
	r := sh(t, s, "cat > new.code-workspace <<'EOF'\n"+task+"\nEOF")
	if exists(ws + "/new.code-workspace") {
		bad = append(bad, "a new.code-workspace a command made was left in place")
	} else if len(r.Quarantined) == 0 {
		bad = append(bad, "new.code-workspace went, but the result does not say so")
	}
	if len(bad) > 0 {
		t.Errorf("VS Code workspace files: %s", strings.Join(bad, "; "))
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack16NestedItemMadeByDecision (sixteenth attack review, a
// variant of d09f481): a file of the protected list that a command makes
// in a nested repository's work tree is set aside after it, but a
// runtime's own write, which no check follows, was allowed to make one: a
// write decision on vendor/lib/lefthook-local.yml, where the person's
// vendor/lib has lefthook.yml and the hook lefthook install put in
// vendor/lib/.git/hooks, which merges the local file on their next commit
// there. At a writable root the same decision is refused. Controls: a new
// source file of the nested repository, and the same name in a directory
// that is no repository, are allowed.
func TestAttack16NestedItemMadeByDecision(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	lib := filepath.Join(ws, "vendor/lib")
	mustDo(t, os.MkdirAll(lib, 0o755))
	if out, err := hostGitRun(t, lib, "init", "-q"); err != nil {
		t.Fatal(out, err)
	}
	mkfiles(t, lib, map[string]string{"lefthook.yml": "pre-commit: {}\n"})
	mkfiles(t, ws, map[string]string{"plain/README": "x\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{"vendor/lib/src/main.go", "plain/lefthook-local.yml"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	for _, rel := range []string{"lefthook-local.yml", "vendor/lib/lefthook-local.yml", "vendor/lib/.vscode/tasks.json", "vendor/lib/.claude/settings.json"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision making %s was allowed", rel)
		}
	}
}

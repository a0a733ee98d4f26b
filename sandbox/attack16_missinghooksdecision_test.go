package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack16MissingHooksPathMadeByDecision (sixteenth attack review, a
// variant of the check that sets aside a missing core.hooksPath a command
// makes): the person's config names hooks relative to the work tree
// (husky's core.hooksPath = .husky/_, .githooks) and that directory does
// not exist yet. One a command makes is set aside after it, but a
// runtime's own write is followed by no check: a write decision on
// .husky/_/pre-commit was allowed, and the person's next commit runs it.
// Controls: another file of the work tree, and a hook-named file in a
// directory the config does not name, are allowed.
func TestAttack16MissingHooksPathMadeByDecision(t *testing.T) {
	f := requireKernel(t, true)
	for _, hooks := range []string{".husky/_", ".githooks"} {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"src/index.js": "x\n"})
		hostGit(t, ws, "init", "-q")
		hostGit(t, ws, "config", "core.hooksPath", hooks)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		for _, rel := range []string{"src/index.js", "scripts/pre-commit"} {
			if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
				t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
			}
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, hooks+"/pre-commit", domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision making %s/pre-commit, which the person's next commit runs, was allowed", hooks)
		}
	}
}

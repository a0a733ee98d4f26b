package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack17NestedItemsWhenRootItemLinked (seventeenth attack review): the
// items kept read-only in a nested repository's work tree were the paths,
// relative to the root, of the root's own carve-outs, which are canonical:
// where the person's workspace has .claude as a symlink (to a directory of
// their dotfiles), the root's .claude/settings.json carve-out lies outside
// the root, and .claude/... was no item of any nested work tree. A command
// wrote vendor/lib/.claude/settings.json (a hook Claude Code runs when the
// person opens vendor/lib) and a write decision on it was allowed. Controls:
// a source file of the nested repository is written, and the same item is
// refused where the root's .claude is a plain directory.
func TestAttack17NestedItemsWhenRootItemLinked(t *testing.T) {
	f := requireKernel(t, true)
	for _, linked := range []bool{false, true} {
		ws := tempWorkspace(t)
		lib := filepath.Join(ws, "vendor/lib")
		mustDo(t, os.MkdirAll(lib, 0o755))
		if out, err := hostGitRun(t, lib, "init", "-q"); err != nil {
			t.Fatal(out, err)
		}
		mkfiles(t, lib, map[string]string{"src/main.go": "x\n", ".claude/settings.json": "{}\n", ".vscode/tasks.json": "{}\n"})
		dot := t.TempDir()
		mkfiles(t, dot, map[string]string{"claude/settings.json": "{}\n"})
		if linked {
			mustDo(t, os.Symlink(dot+"/claude", ws+"/.claude"))
		} else {
			mkfiles(t, ws, map[string]string{".claude/settings.json": "{}\n"})
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		if r := sh(t, s, "echo y >> vendor/lib/src/main.go"); r.ExitCode != 0 {
			t.Fatalf("control: vendor/lib/src/main.go was not writable: %d %s", r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, "vendor/lib/src/main.go", domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on vendor/lib/src/main.go was refused: %v", err)
		}
		for _, rel := range []string{"vendor/lib/.claude/settings.json", "vendor/lib/.vscode/tasks.json"} {
			sh(t, s, "echo pwned >> "+rel)
			if strings.Contains(readFile(t, ws+"/"+rel), "pwned") {
				t.Errorf("root .claude linked %v: a command wrote %s", linked, rel)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
				t.Errorf("root .claude linked %v: a write decision on %s was allowed", linked, rel)
			}
		}
	}
}

package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestProtectedItemOtherCaseDecision: a write decision on an item of the
// protected list spelt in another case (one file on a case-insensitive
// file system) is refused as the item is; an ordinary file in another case
// is written (protectedInAnyCase).
func TestProtectedItemOtherCaseDecision(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{".vscode/settings.json": "{}\n", "README.md": "r\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	for _, p := range []string{".VSCODE/tasks.json", ".Vscode/settings.json", ".ENVRC", ".BashRC", ".MCP.JSON", "LEFTHOOK.yml", ".Config/Git/config"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed: the protected item in another case", p)
		}
	}
	for _, p := range []string{"README.MD", "Src/main.go", ".vscodex/x", ".envrc.example"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err != nil {
			t.Errorf("control: a write decision on %s: %v", p, err)
		}
	}
}

// TestProfileGlobDenyOtherCaseMasked: the kernel side of a profile's glob
// deny matched in any case (domain.ResolvePathRules): a command cannot
// read web/prod.ENV under "**/*.env" = deny (the mask a case-insensitive
// file system's prod.env gets), and reads web/prod.txt.
func TestProfileGlobDenyOtherCaseMasked(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"web/prod.ENV": "KEY=sk-secret\n", "web/prod.txt": "plain\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
	if _, err := (DecisionChecker{}).ResolveFile(&s, "web/prod.ENV", domain.AccessRead, false); err == nil {
		t.Errorf("a read decision on web/prod.ENV was allowed under **/*.env = deny")
	}
	r := sh(t, &s, "cat web/prod.ENV; cat web/prod.txt")
	if strings.Contains(string(r.Stdout), "sk-secret") {
		t.Errorf("the command read web/prod.ENV under **/*.env = deny: %q", r.Stdout)
	}
	if !strings.Contains(string(r.Stdout), "plain") {
		t.Errorf("control: the command did not read web/prod.txt: %q %q", r.Stdout, r.Stderr)
	}
}

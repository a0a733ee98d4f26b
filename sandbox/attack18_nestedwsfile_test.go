package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack18NestedWorkspaceFile (eighteenth attack review, a variant of
// f28b301 and 2b6f857 for the named workspace files): a VS Code workspace
// file or a mise config for an environment is kept read-only, refused to
// a write decision and set aside when a command makes it at the top of a
// writable root, but not at the top of a nested repository's work tree,
// where the protected list's items are: a command rewrote the person's
// vendor/lib/lib.code-workspace with a folderOpen task, made
// vendor/lib/mise.dev.toml, and a write decision on either was allowed;
// VS Code offers the workspace file when the person opens vendor/lib, and
// mise reads the config there. Controls: a source file of the nested
// repository is written by the command and allowed to a write decision,
// and a workspace file in a directory that is no repository stays the
// command's.
func TestAttack18NestedWorkspaceFile(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	lib := filepath.Join(ws, "vendor/lib")
	mustDo(t, os.MkdirAll(lib, 0o755))
	if out, err := hostGitRun(t, lib, "init", "-q"); err != nil {
		t.Fatal(out, err)
	}
	mkfiles(t, lib, map[string]string{"lib.code-workspace": "{}\n", "src/main.go": "x\n"})
	mkfiles(t, ws, map[string]string{"plain/README": "x\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{"vendor/lib/src/main.go", "plain/x.code-workspace"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	for _, rel := range []string{"vendor/lib/lib.code-workspace", "vendor/lib/mise.dev.toml"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed", rel)
		}
	}
	r := sh(t, s, "echo y >> vendor/lib/src/main.go && echo '{}' > plain/x.code-workspace")
	if r.ExitCode != 0 || len(r.Quarantined) != 0 {
		t.Fatalf("control: vendor/lib/src/main.go or plain/x.code-workspace: %d %s %+v", r.ExitCode, r.Stderr, r.Quarantined)
	}
	r = sh(t, s, `echo '{"tasks":{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}}' > vendor/lib/lib.code-workspace; echo '[hooks]' > vendor/lib/mise.dev.toml`)
	if b, _ := os.ReadFile(lib + "/lib.code-workspace"); strings.Contains(string(b), "folderOpen") {
		t.Errorf("the command rewrote the nested repository's workspace file (command %d %s)", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	if exists(lib + "/mise.dev.toml") {
		t.Errorf("the mise config the command made in the nested repository's work tree stayed (set aside %+v)", r.Quarantined)
	}
}

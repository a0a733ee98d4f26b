package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack16NestedWorkTreeCrowdedOut (sixteenth attack review): the
// protected list's items in a nested repository's work tree are kept
// read-only for the first 256 nested ".git" entries the walk finds, and
// for those the walk finds at all (4,096 directories, breadth first). The
// agent, which writes its workspace, put 256 empty ".git" directories, or
// 4,096 empty directories, where the walk lists them first, and the
// person's vendor/lib/lefthook.yml, read by the hook the person installed
// there on their next commit, was written by the next command. Controls:
// without the crowd the file is read-only, and with it a file beside it is
// written.
func TestAttack16NestedWorkTreeCrowdedOut(t *testing.T) {
	f := requireKernel(t, true)
	for _, crowd := range []string{"none", "dotgits", "dirs", "overflow"} {
		t.Run(crowd, func(t *testing.T) {
			ws := tempWorkspace(t)
			lib := filepath.Join(ws, "vendor/lib")
			mustDo(t, os.MkdirAll(lib, 0o755))
			if out, err := hostGitRun(t, lib, "init", "-q"); err != nil {
				t.Fatal(out, err)
			}
			mkfiles(t, lib, map[string]string{"lefthook.yml": "pre-commit: {}\n", "README": "lib\n"})
			switch crowd {
			case "dotgits": // what a command of the agent made earlier
				for i := 0; i < 256; i++ {
					mustDo(t, os.MkdirAll(filepath.Join(ws, fmt.Sprintf("a%03d/.git", i)), 0o755))
				}
			case "dirs":
				for i := 0; i < maxDiscoveryDirs; i++ {
					mustDo(t, os.Mkdir(filepath.Join(ws, fmt.Sprintf("a%04d", i)), 0o755))
				}
			case "overflow": // more than can be protected: refused
				for i := 0; i <= maxNestedWorkTrees; i++ {
					mustDo(t, os.MkdirAll(filepath.Join(ws, fmt.Sprintf("a%04d/.git", i)), 0o755))
				}
				walkCache.mu.Lock()
				walkCache.m = map[string]walkResult{}
				walkCache.mu.Unlock()
				s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
				if r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo pwned >> vendor/lib/lefthook.yml"}}, nil); err == nil && r.SandboxError == "" {
					t.Errorf("with %d nested repositories a command ran: %+v", maxNestedWorkTrees+1, r)
				}
				if _, err := (DecisionChecker{}).ResolveFile(s, "vendor/lib/lefthook.yml", domain.AccessWrite, false); err == nil {
					t.Errorf("with %d nested repositories a write decision was allowed", maxNestedWorkTrees+1)
				}
				if b, _ := os.ReadFile(filepath.Join(lib, "lefthook.yml")); strings.Contains(string(b), "pwned") {
					t.Errorf("with %d nested repositories, vendor/lib/lefthook.yml was written", maxNestedWorkTrees+1)
				}
				return
			}
			walkCache.mu.Lock()
			walkCache.m = map[string]walkResult{}
			walkCache.mu.Unlock()
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			if r := sh(t, s, "echo x >> vendor/lib/README"); r.ExitCode != 0 {
				t.Fatalf("control: vendor/lib/README was not writable: %d %s", r.ExitCode, r.Stderr)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "vendor/lib/README", domain.AccessWrite, false); err != nil {
				t.Fatalf("control: a write decision on vendor/lib/README was refused: %v", err)
			}
			sh(t, s, "echo 'pre-commit: {commands: {x: {run: id > /tmp/pwned}}}' >> vendor/lib/lefthook.yml")
			if b, _ := os.ReadFile(filepath.Join(lib, "lefthook.yml")); strings.Contains(string(b), "pwned") {
				t.Errorf("with the crowd %s, vendor/lib/lefthook.yml was written by the command", crowd)
			}
		})
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack17NestedItemInsideNestedRepo (seventeenth attack review, a
// bypass of ba0de0f): a write decision is refused at or below an item of
// the protected list in a nested repository's work tree, but the check
// asked only the nearest work tree above the path. A command made the
// person's vendor/lib/mise (their mise tasks) a repository of its own (git
// init, which the check after it lets stay), and a write decision on
// vendor/lib/mise/config.toml, whose nearest work tree is then
// vendor/lib/mise, where config.toml is no item, was allowed; mise runs
// its hooks and tasks' environment when the person enters vendor/lib.
// Controls: a task in vendor/lib/mise and a source file of vendor/lib are
// allowed, and the item is refused before the git init.
func TestAttack17NestedItemInsideNestedRepo(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	lib := filepath.Join(ws, "vendor/lib")
	mustDo(t, os.MkdirAll(lib, 0o755))
	if out, err := hostGitRun(t, lib, "init", "-q"); err != nil {
		t.Fatal(out, err)
	}
	mkfiles(t, lib, map[string]string{"src/main.go": "x\n", "mise/tasks/build": "#!/bin/sh\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	const item = "vendor/lib/mise/config.toml"
	if _, err := (DecisionChecker{}).ResolveFile(s, item, domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write decision on %s was allowed before the git init", item)
	}
	if r := sh(t, s, "git init -q vendor/lib/mise"); r.ExitCode != 0 {
		t.Fatalf("git init: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(lib + "/mise/.git/HEAD") {
		t.Fatalf("the git init did not stay")
	}
	// The walk of the root is reused for walkTTL: the agent waits it out.
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
	for _, rel := range []string{"vendor/lib/src/new.go", "vendor/lib/mise/tasks/test"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, item, domain.AccessWrite, false); err == nil {
		t.Errorf("a write decision on %s was allowed once vendor/lib/mise was a repository", item)
	} else {
		t.Logf("refused: %v", err)
	}
}

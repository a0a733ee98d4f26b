package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack90_NestedDotConfigFirstItemOnly (ninetieth review, a variant
// the eighty-ninth review's fix missed): a .config the command makes is
// now set aside only with an item of the protected list below it
// (rulesOnlyAbove gained .config), and newPlantCheck watches each item
// below such a directory at a root, not the first only (seen keyed per
// item). The nested repositories' work trees take the other way:
// setAsideNestedCreated judges each first name that a work tree lacked
// with the first item below it alone (fsView.nestedFirsts: ".config" with
// one .config item of the list). In a nested
// repository (vendor/lib) without a .config, the command makes
// .config/mise/config.toml (mise's project config: its [env] _.source and
// [hooks] run at the person's next cd there), or .config/lefthook.yml
// or .config/lefthook-local.yml (merged into the config of the lefthook
// the person installed there: its commands run at their next commit), or
// .config/hk.pkl:
// setAsideMade finds that one item not made, takes the .config for one
// holding no item
// (rulesOnlyAbove, plainWayOnly) and leaves it. Before the eighty-ninth
// fix the whole .config was set aside.
//
// Fix: in setAsideNestedCreated, for a first name in rulesOnlyAbove, judge
// it with every item below it (nestedRels), as newPlantCheck now does at a
// root.
//
// Control: .config/mise.toml itself (the first item) is set aside in the
// nested work tree, and .config/lefthook.yml is at the workspace's root.
func TestAttack90_NestedDotConfigFirstItemOnly(t *testing.T) {
	f := requireKernel(t, true)
	setup := func() (string, string) {
		ws := tempWorkspace(t)
		lib := filepath.Join(ws, "vendor/lib")
		mustDo(t, os.MkdirAll(lib, 0o755))
		if out, err := hostGitRun(t, lib, "init", "-q"); err != nil {
			t.Fatal(out, err)
		}
		mkfiles(t, lib, map[string]string{"README": "lib\n"})
		walkCache.mu.Lock()
		walkCache.m = map[string]walkResult{}
		walkCache.mu.Unlock()
		return ws, lib
	}
	// Controls.
	ws, lib := setup()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "mkdir -p vendor/lib/.config && echo '[env]' > vendor/lib/.config/mise.toml")
	if exists(lib + "/.config/mise.toml") {
		t.Fatalf("control: the nested work tree's .config/mise.toml stayed: %d %s %v", r.ExitCode, r.Stderr, r.Quarantined)
	}
	r = sh(t, s, "mkdir -p .config && echo 'pre-commit: {}' > .config/lefthook.yml")
	if exists(ws + "/.config/lefthook.yml") {
		t.Fatalf("control: the root's .config/lefthook.yml stayed: %d %s %v", r.ExitCode, r.Stderr, r.Quarantined)
	}

	for _, item := range []string{".config/lefthook-local.yml", ".config/lefthook.yml", ".config/mise/config.toml", ".config/mise.local.toml", ".config/hk.pkl"} {
		ws, lib := setup()
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		r := sh(t, s, "mkdir -p \"$(dirname vendor/lib/"+item+")\" && echo 'x = 1' > vendor/lib/"+item)
		if r.ExitCode != 0 {
			t.Fatalf("%s: the command failed: %d %s", item, r.ExitCode, r.Stderr)
		}
		if exists(lib + "/" + item) {
			t.Errorf("a nested repository's work tree without a .config: the command made %s and it stayed (set aside: %v)", item, r.Quarantined)
		}
	}
}

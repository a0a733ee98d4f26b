package sandbox

import (
	"os"
	"slices"
	"testing"

	"turnstile/domain"
)

// TestCoreWorktreeHooksPathHeld: discovery takes a relative hooks path
// (the person's global core.hooksPath = .githooks, or the repository's
// own) from the work tree a repository's core.worktree names too, relative
// to the git dir as git takes it (the ninetieth review): a missing one is
// noted (missingRefs), one that exists is kept read-only. Control: a
// repository without core.worktree notes its own work tree's only.
func TestCoreWorktreeHooksPathHeld(t *testing.T) {
	f := requireKernel(t, false)
	home := tempWorkspace(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	mustDo(t, os.WriteFile(home+"/.gitconfig", []byte("[core]\n\thooksPath = .githooks\n"), 0o644))
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{
		"evil/.git/HEAD":        "ref: refs/heads/main\n",
		"evil/.git/config":      "[core]\n\tbare = false\n\tworktree = ../../wt\n",
		"wt/README":             "x\n",
		"other/.git/HEAD":       "ref: refs/heads/main\n",
		"other/.git/config":     "[core]\n\tworktree = \"" + ws + "/wt2\"\n\thooksPath = hooks2\n",
		"wt2/hooks2/pre-commit": "#!/bin/sh\n",
		"plain/.git/HEAD":       "ref: refs/heads/main\n",
		"plain/.git/config":     "[core]\n\tbare = false\n",
	})
	forgetWalks()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	v := buildFSView(&s.Sandbox.Filesystem, true)
	for _, p := range []string{ws + "/wt/.githooks", ws + "/evil/.githooks", ws + "/plain/.githooks", ws + "/wt2/.githooks"} {
		if !slices.Contains(v.missingRefs, p) {
			t.Errorf("%s is not noted missing: %q", p, v.missingRefs)
		}
	}
	if slices.Contains(v.missingRefs, ws+"/wt2/hooks2") {
		t.Errorf("wt2/hooks2 exists and is noted missing")
	}
	if a, _ := v.access(ws + "/wt2/hooks2/pre-commit"); a == domain.AccessWrite {
		t.Errorf("the hooks path wt2/hooks2 that a repository's own config names from its core.worktree stays writable")
	}
	if slices.Contains(v.missingRefs, ws+"/.githooks") || slices.Contains(v.missingRefs, ws+"/evil/.git/.githooks") {
		t.Errorf("a relative hooks path taken from somewhere git does not: %q", v.missingRefs)
	}
}

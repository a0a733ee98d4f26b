package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestRootRepositoryIsNoNestedWorkTree: the walk of a writable root finds
// the root's own .git, and protectNestedWorkTrees took the root for a
// nested repository's work tree: every item of the protected list missing
// at the root was noted again as a nested one, and the check after each
// command looked each up once more (about a millisecond of every spawn in
// a repository). The root's items are the root's; only a repository below
// it gets the list's items of its own. Control: a nested repository's
// missing items are noted, for it.
func TestRootRepositoryIsNoNestedWorkTree(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	for _, d := range []string{ws + "/.git/hooks", ws + "/sub/.git/hooks", ws + "/src"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	v := buildFSView(&s.Sandbox.Filesystem, true)
	for _, p := range v.nestedMissing {
		if !strings.HasPrefix(p, ws+"/sub/") {
			t.Errorf("%s: noted as a nested work tree's missing item, outside ws/sub", p)
		}
	}
	for _, p := range v.nestedItems {
		if !strings.HasPrefix(p, ws+"/sub/") {
			t.Errorf("%s: kept as a nested work tree's item, outside ws/sub", p)
		}
	}
	var sub bool
	for _, na := range v.nestedAbsent {
		switch na.wt {
		case ws + "/sub":
			sub = true
		default:
			t.Errorf("%s: its missing items noted as a nested work tree's", na.wt)
		}
	}
	if !sub {
		t.Fatalf("the nested repository ws/sub's missing items were not noted")
	}
}

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack17DeepWalkBoundReported: past the discovery walk's bounds a
// second walk, with a larger bound of names, looks for the person's
// repositories (withKnownDotGits), and when that one reached its own bound
// too, nothing said so (seventeenth attack review, low, left open by the
// sandbox reviewer: a million long names of the agent's leave a nested
// repository's tool settings writable before the first check of a root;
// refusing there would refuse large node_modules trees, so the bound is
// reported with the others, in the view's limits and the command's).
// Control: a root whose second walk reaches no bound reports none of it.
func TestAttack17DeepWalkBoundReported(t *testing.T) {
	f := requireKernel(t, false)
	defer func(n int) { maxDiscoveryNames = n }(maxDiscoveryNames)
	maxDiscoveryNames = 256 // the second walk's bound is 8x: 2048 units
	for _, crowd := range []int{100, 400} {
		walkCache.mu.Lock()
		walkCache.m = map[string]walkResult{}
		walkCache.mu.Unlock()
		ws := tempWorkspace(t)
		if err := os.MkdirAll(ws+"/vendor/lib/.git/hooks", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(ws+"/aaa", 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < crowd; i++ {
			if err := os.WriteFile(fmt.Sprintf("%s/aaa/%04d%s", ws, i, strings.Repeat("x", 200)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		v := buildFSView(&s.Sandbox.Filesystem, true)
		var first, second bool
		for _, l := range v.limits {
			first = first || strings.Contains(l, "stopped after") && !strings.Contains(l, "past the first bound")
			second = second || strings.Contains(l, "past the first bound")
		}
		switch {
		case !first:
			t.Fatalf("%d long names: the first walk reached no bound: %q", crowd, v.limits)
		case crowd == 400 && !second:
			t.Errorf("%d long names: the second walk's bound is not reported: %q", crowd, v.limits)
		case crowd == 100 && second:
			t.Errorf("control, %d long names: %q", crowd, v.limits)
		}
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack172_DeepRootCost (review 172, medium: denial of service of
// the server). The runtime (the agent, holding its credential) chooses a
// turn's workspace_root inside allowed_roots, and the agent's command can
// make a directory 300 levels deep there (mkdir -p a/a/a/…, well inside
// PATH_MAX). Every view build of such a turn (each decision and each
// command, after any change in what the view watches) walks each of its
// rules' paths from / one lstat per element (fsView.lookups, lookupsOf),
// each lstat itself a walk of the whole path by the kernel: the root's
// protected items, the launcher files above it (dirsAbove goes up 256
// levels since review 168/169) and the Bazel markers at each level cost
// depth² per rule. Measured: one check of a turn rooted 300 levels deep
// takes seconds of the server's CPU, of one rooted at the top a few
// milliseconds; ten project roots so made multiply it.
//
// Control: the same check of a turn rooted at the top of the same tree is
// quick.
func TestAttack172_DeepRootCost(t *testing.T) {
	f := requireKernel(t, true)
	top := tempWorkspace(t)
	deep := top + "/" + strings.TrimSuffix(strings.Repeat("a/", 300), "/")
	mustDo(t, os.MkdirAll(deep, 0o755))
	check := func(root string) time.Duration {
		t.Helper()
		s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, &domain.ProfileCatalog{Home: "/nonexistent-home"},
			domain.SourceComposer, domain.SnapshotInputs{Cwd: root, WorkspaceRoot: root, Kernel: f.Kernel, RootLinks: rootLinksOf(t, root)})
		if err != nil {
			t.Fatal(err)
		}
		best := time.Duration(1 << 62)
		for i := range 2 {
			// A change the view watches (a file made at the root), as
			// every command of the agent's makes.
			mustDo(t, os.WriteFile(root+"/f"+string(rune('0'+i)), nil, 0o644))
			start := time.Now()
			if _, err := (DecisionChecker{}).ResolveFile(&s, root+"/x.go", domain.AccessWrite, false); err != nil {
				t.Fatalf("premise: a write at the root %s was refused: %v", root, err)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	if took := check(top); took > time.Second {
		t.Fatalf("control: a check of a turn rooted at the top took %v", took)
	}
	if took := check(deep); took > time.Second {
		t.Errorf("a check of a turn rooted 300 levels deep (a directory the agent's command made) took %v of the server's time (fsView.lookups walks each rule's path from /: depth² per rule)", took)
	}
}

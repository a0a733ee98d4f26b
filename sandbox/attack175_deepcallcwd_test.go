package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack175_DeepCallCwdCost (hundred-and-seventy-fifth review,
// denial of service of the server): review 172 bounds how deep a turn's
// root and cwd may lie (domain.MaxRootDepth, 64), since each rule of a
// view is looked up from / one element at a time. The Claude Code hook's
// call cwd (PreToolUse's "cwd", which the agent can send itself: it holds
// the hook's credential; or Claude Code's Bash cwd after a cd) is not
// bounded: domain's AlsoProtectedAt holds the protected list at every
// directory from it up to its root, in a new view per call, so a call
// cwd N levels below the root adds the list N times (about 300 entries a
// level), each looked up through up to N elements. Measured on this
// machine (shared with a test run): 64 levels deep (within the bound),
// 19,130 entries and 14 s for one decision; 93 deep, 32 s; 300 deep, more
// than six minutes (the run was killed). The agent's command makes the
// directory (mkdir -p a/a/…) in its workspace.
//
// Control: the same decision from a call cwd one level below the root is
// cheap; the assertion is that 50 levels cost more than a second and 20
// times as much.
func TestAttack175_DeepCallCwdCost(t *testing.T) {
	f := requireKernel(t, true)
	top := tempWorkspace(t)
	deep := top + "/" + strings.TrimSuffix(strings.Repeat("a/", 50), "/")
	mustDo(t, os.MkdirAll(deep, 0o755))
	s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, &domain.ProfileCatalog{Home: "/nonexistent-home"},
		domain.SourceComposer, domain.SnapshotInputs{Cwd: top, WorkspaceRoot: top, Kernel: f.Kernel, RootLinks: rootLinksOf(t, top)})
	if err != nil {
		t.Fatal(err)
	}
	check := func(cwd string) (int, time.Duration) {
		snap, _ := s.AlsoProtectedAt(cwd)
		start := time.Now()
		if _, err := (DecisionChecker{}).ResolveFile(&snap, top+"/x.go", domain.AccessWrite, false); err != nil {
			t.Fatalf("a write at the root from the call cwd %s: %v", cwd, err)
		}
		return len(snap.Sandbox.Filesystem.Entries), time.Since(start)
	}
	nOK, dOK := check(top + "/a")
	nDeep, dDeep := check(deep)
	t.Logf("call cwd 1 level below the root: %d entries, %v; 50 levels: %d entries, %v", nOK, dOK, nDeep, dDeep)
	if dDeep > time.Second && dDeep > 20*dOK {
		t.Errorf("a write decision from a call cwd 50 levels below the root (%d directories deep, within MaxRootDepth) held the protected list at each of its directories: %d entries against %d, one check cost %v against %v",
			strings.Count(deep, "/"), nDeep, nOK, dDeep, dOK)
	}
}

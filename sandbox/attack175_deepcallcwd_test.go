package sandbox

import (
	"os"
	"strings"
	"testing"

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
// A call cwd more than domain.MaxCallCwdLevels below its root is refused
// now; control: one at the bound, and one a level below the root, are
// decided.
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
	for _, levels := range []int{1, domain.MaxCallCwdLevels} {
		cwd := top + "/" + strings.TrimSuffix(strings.Repeat("a/", levels), "/")
		snap, _, err := s.AlsoProtectedAt(cwd)
		if err != nil {
			t.Fatalf("control: a call cwd %d levels below the root: %v", levels, err)
		}
		if _, err := (DecisionChecker{}).ResolveFile(&snap, top+"/x.go", domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write at the root from the call cwd %d levels down: %v", levels, err)
		}
	}
	if _, _, err := s.AlsoProtectedAt(deep); err == nil {
		t.Errorf("a call cwd 50 levels below the root was taken: the protected list held at each of its directories costs seconds of the server's time a check")
	}
}

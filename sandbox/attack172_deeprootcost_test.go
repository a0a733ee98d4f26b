package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack172_DeepRootCost (review 172, medium: denial of service of
// the server). The runtime (the agent, holding its credential) chooses a
// turn's workspace_root inside allowed_roots, and the agent's command can
// make a directory 300 levels deep there (mkdir -p a/a/a/…, well inside
// PATH_MAX). Every view build of such a turn walks each of its rules'
// paths from / one lstat per element, each lstat itself a walk of the
// whole path by the kernel: depth² per rule, measured at 3 s of the
// server's CPU a check. A root (or cwd) deeper than domain.MaxRootDepth is
// refused now, as written and where its link leads; one at that depth
// works.
func TestAttack172_DeepRootCost(t *testing.T) {
	f := requireKernel(t, true)
	top := tempWorkspace(t)
	deep := top + "/" + strings.TrimSuffix(strings.Repeat("a/", 300), "/")
	mustDo(t, os.MkdirAll(deep, 0o755))
	snap := func(root string) (*domain.TurnExecutionSecuritySnapshot, error) {
		s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, &domain.ProfileCatalog{Home: "/nonexistent-home"},
			domain.SourceComposer, domain.SnapshotInputs{Cwd: root, WorkspaceRoot: root, Kernel: f.Kernel, RootLinks: rootLinksOf(t, root)})
		return &s, err
	}
	// Control: a root at the deepest depth allowed works.
	ok := "/" + strings.TrimPrefix(top, "/")
	for strings.Count(ok, "/") < domain.MaxRootDepth {
		ok += "/a"
	}
	s, err := snap(ok)
	if err != nil {
		t.Fatalf("control: a root %d directories deep was refused: %v", strings.Count(ok, "/"), err)
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ok+"/x.go", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a write at the root was refused: %v", err)
	}
	if _, err := snap(deep); err == nil {
		t.Errorf("a turn rooted 300 levels deep (a directory the agent's command made) was accepted: each check of it costs seconds of the server's time")
	}
	// The same depth reached through a link at the top.
	mustDo(t, os.Symlink(deep, top+"/lnk"))
	if err := domain.CheckRootDepth("workspace_root", top+"/lnk", rootLinksOf(t, top+"/lnk")[top+"/lnk"]); err == nil {
		t.Errorf("a root whose link leads 300 levels deep passes the depth check")
	}
}

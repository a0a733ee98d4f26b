package sandbox

import "testing"

// TestAttackPlantCommondirSwap: the check takes a linked-worktree git dir
// for changed when its own entries or its common dir's config and hooks
// have a new ctime, but not when the common dir itself was replaced. A
// first command leaves a git dir x/wt whose common dir x/common is benign
// (trusted, nothing reported) and, beside it, a directory x/evil with a
// hostile config (no HEAD: no repository, not checked). A later command
// renames x/evil over x/common (two renames: only the directories' own
// ctimes change) and registers a gitfile for x/wt as a gitlink: the check
// sees nothing changed, and the host's git status runs the fsmonitor.
func TestAttackPlantCommondirSwap(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
		agentGit+"-C real rev-parse HEAD > sha && mkdir -p x/wt && mv real/.git x/common && rmdir real && "+
		"mv x/common/HEAD x/wt/HEAD && echo ../common > x/wt/commondir && cp -a x/common x/evil && "+
		"printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> x/evil/config && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 0 {
		t.Fatalf("the first command failed or was caught")
	}
	for _, p := range []string{"/x/evil/config", "/x/wt/commondir", "/x/wt", "/x/common/config", "/sha"} {
		clockPast(t, f.ws+p)
	}
	r = sh(t, f.s, "mv x/common x/old && mv x/evil x/common && mkdir sub && echo 'gitdir: ../x/wt' > sub/.git && "+
		agentGit+"update-index --add --cacheinfo 160000,$(cat sha),sub && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 {
		t.Fatalf("the second command failed")
	}
	attackHostStatus(t, f, f.ws)
}

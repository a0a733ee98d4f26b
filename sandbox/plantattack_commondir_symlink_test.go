package sandbox

import "testing"

// TestAttackPlantCommondirSymlink: the check reads commondir with
// O_NOFOLLOW and, when that fails (a symlink), takes the git dir for one
// without a common dir; git follows the symlink and takes its config and
// hooks from the common dir named in the file the symlink points to. A
// gitfile in a new directory registered as a gitlink in the workspace's
// index makes the host's git status at the root run the common dir's
// core.fsmonitor.
func TestAttackPlantCommondirSymlink(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
		"sha=$("+agentGit+"-C real rev-parse HEAD) && mkdir -p x/wt sub && mv real/.git x/common && rmdir real && "+
		"mv x/common/HEAD x/wt/HEAD && "+
		"printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> x/common/config && "+
		"echo ../common > x/ptr && ln -s ../ptr x/wt/commondir && "+
		"echo 'gitdir: ../x/wt' > sub/.git && "+
		agentGit+"update-index --add --cacheinfo 160000,$sha,sub && echo ok")
	attackReport(t, "plant", r)
	if r.ExitCode != 0 {
		t.Fatalf("the plant failed")
	}
	attackHostStatus(t, f, f.ws)
}

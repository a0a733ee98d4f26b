package sandbox

import "testing"

// TestAttack3CommondirLink (third attack review): the check reads a
// linked-worktree git dir again when its own control entries, or its common
// dir itself, that dir's config or its hooks changed. When the commondir
// path passes through a symlink, retargeting the symlink changes none of
// these: the common dir git now takes is a different, older directory.
// A first command leaves x/wt (HEAD, commondir "../link") with x/link ->
// common-a, a benign common dir (checked: trusted), and beside it common-b,
// a copy with a core.fsmonitor in its config (no HEAD: no repository, never
// checked), and registers a gitfile for x/wt as a gitlink. A later command
// does nothing but `ln -sfn common-b x/link`: its check sees nothing
// changed (and x/wt is a git dir the walks have seen), in the server as in
// the CLI; the host's git status at the root ran the program. A commondir
// that leads through a symlink is now not trusted: the first command is
// caught.
func TestAttack3CommondirLink(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
		"sha=$("+agentGit+"-C real rev-parse HEAD) && mkdir -p x/wt sub && mv real/.git x/common-a && rmdir real && "+
		"mv x/common-a/HEAD x/wt/HEAD && cp -a x/common-a x/common-b && "+
		"printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> x/common-b/config && "+
		"ln -s common-a x/link && echo ../link > x/wt/commondir && echo 'gitdir: ../x/wt' > sub/.git && "+
		agentGit+"update-index --add --cacheinfo 160000,$sha,sub && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 1 {
		t.Fatal("the first command failed, or its commondir through a link was not caught")
	}
	out, _ := hostGitRun(t, f.ws, "status")
	if exists(f.marker) {
		t.Fatalf("the first command alone already runs the program: %s", out)
	}
	clockPast(t, f.ws+"/x/common-b/config")
	r = sh(t, f.s, "ln -sfn common-b x/link && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 {
		t.Fatal("the second command failed")
	}
	attackHostStatus(t, f, f.ws)
}

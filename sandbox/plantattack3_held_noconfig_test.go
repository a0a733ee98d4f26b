package sandbox

import "testing"

// TestAttack3HeldNoConfig (third attack review): the check skips every git
// dir the command ran with held, taking its config for read-only. But the
// holds make read-only only what exists (config) or what they create
// (hooks, info, commondir, config.worktree): a discovered git dir without
// a config file (git needs none) gets none, and the command may create
// one. A first command leaves a repository x/.git whose config it removed
// (trusted: nothing to distrust); the next command's discovery holds it,
// and that command writes a config with a core.fsmonitor into it and
// registers x as a gitlink. The check skips the held git dir; the host's
// git status at the workspace's root runs the program.
func TestAttack3HeldNoConfig(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
		agentGit+"-C real rev-parse HEAD > sha && mkdir x && mv real/.git x/.git && rmdir real && rm x/.git/config && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 0 {
		t.Fatal("the first command failed or was caught")
	}
	clockPast(t, f.ws+"/x/.git")
	// The walk cache of the first command's discovery expires (walkTTL).
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
	r = sh(t, f.s, "printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' > x/.git/config && "+
		agentGit+"update-index --add --cacheinfo 160000,$(cat sha),x && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 {
		t.Fatal("the second command failed")
	}
	attackHostStatus(t, f, f.ws)
}

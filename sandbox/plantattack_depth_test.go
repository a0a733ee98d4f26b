package sandbox

import (
	"strings"
	"testing"
)

// deepDir is a relative path 300 directories deep (past the walk's first
// bound, 256).
func deepDir() string { return strings.TrimSuffix(strings.Repeat("d/", 300), "/") }

// TestAttackPlantDepth (second attack review): the check looked no deeper
// than 256 directories and only reported that it did not
// (Result.CheckLimits) while the repository stayed usable; it now looks as
// deep as a path can go.
//
// beyond-depth: one command puts a hostile git dir 257 levels down and a
// gitfile pointing at it in a gitlinked directory at the top; the host's
// git status at the root runs it (the command's result names a depth limit
// but no repository).
//
// lifted: the first command leaves a hostile repository below the depth
// bound (a limit is reported); a later command renames its work tree's
// directory up to the top (the git dir's own ctimes do not change) and
// registers it: the later command's check reports nothing at all.
func TestAttackPlantDepth(t *testing.T) {
	plant := func(f *plantFixture) string {
		return agentGit + "init -q real && " + agentGit + "-C real commit -q --allow-empty -m x && " +
			agentGit + "-C real rev-parse HEAD > sha && " +
			"printf '[core]\\n\\tfsmonitor = " + f.attackMarkerCmd() + "\\n' >> real/.git/config && mkdir -p " + deepDir() + " && "
	}
	t.Run("beyond-depth", func(t *testing.T) {
		f := newPlantFixture(t)
		r := sh(t, f.s, plant(f)+"mv real/.git "+deepDir()+"/g && rmdir real && mkdir sub && "+
			"echo 'gitdir: ../"+deepDir()+"/g' > sub/.git && "+agentGit+"update-index --add --cacheinfo 160000,$(cat sha),sub && echo ok")
		attackReport(t, "plant", r)
		if r.ExitCode != 0 || len(r.Quarantined) != 1 {
			t.Fatalf("the plant failed, or was not caught")
		}
		attackHostStatus(t, f, f.ws)
	})
	t.Run("lifted", func(t *testing.T) {
		f := newPlantFixture(t)
		r := sh(t, f.s, plant(f)+"mv real "+deepDir()+"/real && echo ok")
		attackReport(t, "first command", r)
		if r.ExitCode != 0 {
			t.Fatalf("the plant failed")
		}
		clockPast(t, f.ws+"/"+deepDir()+"/real")
		r = sh(t, f.s, "mv "+deepDir()+"/real sub && "+agentGit+"update-index --add --cacheinfo 160000,$(cat sha),sub && echo ok")
		attackReport(t, "second command", r)
		if r.ExitCode != 0 {
			t.Fatalf("the second command failed")
		}
		attackHostStatus(t, f, f.ws)
	})
}

package sandbox

import "testing"

// TestAttack3Strategy (third attack review): the check sets aside a
// stopped rebase's or cherry-pick's state only when its instructions hold
// an exec line. But git also takes the merge strategy from that state
// (.git/rebase-merge/strategy; "options.strategy" in .git/sequencer/opts)
// and runs "git merge-<strategy>" for the next pick that needs a merge;
// git execs a dashed external with a "/" in its name as a path relative to
// the work tree's top: strategy "../x" runs ./git-merge-../x, a file the
// command wrote in the workspace. The workspace's .git is held, but its
// sequencer state stays writable.
//
// rebase-strategy: an interactive rebase stopped at a break (no exec line;
// HEAD moved on by a commit so that the next pick merges), strategy file
// written; the host's git rebase --continue runs the program.
// cherry-pick-opts: a cherry-pick stopped on a conflict, options.strategy
// appended to sequencer/opts; the host's git cherry-pick --continue runs it.
func TestAttack3Strategy(t *testing.T) {
	prog := func(f *plantFixture) string {
		return "mkdir 'git-merge-..' && printf '#!/bin/sh\\n" + f.attackMarkerCmd() + "\\nexit 0\\n' > 'git-merge-../x' && chmod +x 'git-merge-../x' && "
	}
	t.Run("rebase-strategy", func(t *testing.T) {
		f := newPlantFixture(t)
		r := sh(t, f.s, "echo a > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m second && "+
			agentGit+"-c \"sequence.editor=sed -i '1i break'\" rebase -q -i HEAD~1; "+
			"echo b > b.txt && "+agentGit+"add b.txt && "+agentGit+"commit -q -m extra && "+
			"echo ../x > .git/rebase-merge/strategy && "+prog(f)+"cat .git/rebase-merge/git-rebase-todo && echo ok")
		attackReport(t, "command", r)
		if r.ExitCode != 0 {
			t.Fatal("the plant failed")
		}
		attackHostStatus(t, f, f.ws, "rebase", "--continue")
	})
	t.Run("cherry-pick-opts", func(t *testing.T) {
		f := newPlantFixture(t)
		r := sh(t, f.s, agentGit+"checkout -q -b side && echo a > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m two && "+
			"echo c > c.txt && "+agentGit+"add c.txt && "+agentGit+"commit -q -m three && "+agentGit+"checkout -q - && "+
			"echo mine > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m mine && "+
			"{ "+agentGit+"cherry-pick side~2..side >/dev/null 2>&1; true; } && echo a > a.txt && "+agentGit+"add a.txt && "+
			"printf '[options]\\n\\tstrategy = ../x\\n' >> .git/sequencer/opts && "+prog(f)+"cat .git/sequencer/todo && echo ok")
		attackReport(t, "command", r)
		if r.ExitCode != 0 {
			t.Fatal("the plant failed")
		}
		attackHostStatus(t, f, f.ws, "cherry-pick", "--continue")
	})
}

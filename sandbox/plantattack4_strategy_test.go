package sandbox

import "testing"

// TestAttack4StrategyOpts (fourth attack review): strategyRuns skips any
// sequencer/opts line that mentions "strategy-option", and only takes a
// line whose text before "=" is exactly "strategy" as the strategy key.
// git's config parser takes a key on a section header's line:
// "[options] strategy = ../x # strategy-option" sets options.strategy to
// ../x (the comment is dropped), and the check skips the line.
func TestAttack4StrategyOpts(t *testing.T) {
	f := newPlantFixture(t)
	prog := "mkdir 'git-merge-..' && printf '#!/bin/sh\\n" + f.attackMarkerCmd() + "\\nexit 0\\n' > 'git-merge-../x' && chmod +x 'git-merge-../x' && "
	r := sh(t, f.s, agentGit+"checkout -q -b side && echo a > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m two && "+
		"echo c > c.txt && "+agentGit+"add c.txt && "+agentGit+"commit -q -m three && "+agentGit+"checkout -q - && "+
		"echo mine > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m mine && "+
		"{ "+agentGit+"cherry-pick side~2..side >/dev/null 2>&1; true; } && echo a > a.txt && "+agentGit+"add a.txt && "+
		"printf '[options] strategy = ../x # strategy-option\\n' >> .git/sequencer/opts && "+prog+"cat .git/sequencer/opts && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 {
		t.Fatal("the plant failed")
	}
	attackHostStatus(t, f, f.ws, "cherry-pick", "--continue")
}

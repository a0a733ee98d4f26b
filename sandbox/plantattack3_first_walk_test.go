package sandbox

import "testing"

// TestAttack3FirstWalk (third attack review): a walk that knows no earlier
// walk of its root (the first one in a process: every command of the
// `turnstile sandbox` CLI, which runs one command a process; the first
// command after a server restart) reads a repository only when its config,
// config.worktree, commondir or hooks changed during the command, or its
// git dir, objects or refs were born during it. Renaming HEAD into place
// changes none of these. A first command leaves x/ with objects, refs and a
// config with a core.fsmonitor but its HEAD renamed to HEAD.off: no git dir
// (neither for git nor for the walk), nothing checked. A second command
// renames HEAD.off back, puts a gitfile for x in sub and registers sub as
// a gitlink: its (first) walk finds a git dir whose every time it looks at
// is old, and reads nothing; the host's git status at the root runs the
// program. (Reproduced with the real CLI binary, two processes:
// `turnstile sandbox --mode auto_accept_edits --root WS -- sh -c ...`.)
//
// The test runs both commands in this process, so it drops the walks'
// memory between them as a new CLI process starts without it (cli). The
// control (server) keeps it: that walk knows x was no repository before
// and reads it.
func TestAttack3FirstWalk(t *testing.T) {
	t.Run("cli", func(t *testing.T) { attack3FirstWalk(t, true) })
	t.Run("server-control", func(t *testing.T) { attack3FirstWalk(t, false) })
}

func attack3FirstWalk(t *testing.T, newProcess bool) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
		agentGit+"-C real rev-parse HEAD > sha && mv real/.git x && rmdir real && mv x/HEAD x/HEAD.off && "+
		"printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> x/config && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 0 {
		t.Fatal("the first command failed or was caught")
	}
	clockPast(t, f.ws+"/x/config")
	// A new process (the CLI's next command, a restarted server).
	if newProcess {
		plantMemos.Lock()
		plantMemos.m = map[string]*rootMemo{}
		plantMemos.Unlock()
	}
	r = sh(t, f.s, "mv x/HEAD.off x/HEAD && mkdir sub && echo 'gitdir: ../x' > sub/.git && "+
		agentGit+"update-index --add --cacheinfo 160000,$(cat sha),sub && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 {
		t.Fatal("the second command failed")
	}
	attackHostStatus(t, f, f.ws)
}

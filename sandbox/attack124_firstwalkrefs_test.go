package sandbox

import "testing"

// TestAttack124_FirstWalkRefsRenamedIntoPlace (hundred-and-twenty-fourth
// review; a new way past TestAttack3FirstWalk's fix): a walk that knows no
// earlier walk of its root (every command of the `turnstile sandbox` CLI,
// the first command after a server restart) reads a repository, and looks
// through all its git dir for links (gitLinks' "all"), only when its
// controls changed, its HEAD changed, or its git dir, objects or refs were
// BORN during the command. The fix for the third review catches HEAD
// renamed into place by HEAD's change time; refs renamed into place keeps
// its birth time, and the walk recognises a git dir by HEAD with objects
// and refs as git does. A first command leaves x/ with HEAD, objects and a
// config with a core.fsmonitor but its refs renamed to refs.off: no git dir
// (neither for git nor for the walk), nothing checked. A second command
// renames refs.off back, puts a gitfile for x in sub and registers sub as
// a gitlink: its (first) walk finds a git dir whose every time it looks at
// is old (refs' birth included), and reads nothing; the host's git status
// at the root runs the program.
//
// Control (head_control): the same two commands renaming HEAD instead of
// refs, which the walk catches.
func TestAttack124_FirstWalkRefsRenamedIntoPlace(t *testing.T) {
	t.Run("head_control", func(t *testing.T) { attack124FirstWalk(t, "HEAD") })
	t.Run("refs_attack", func(t *testing.T) { attack124FirstWalk(t, "refs") })
}

func attack124FirstWalk(t *testing.T, name string) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
		agentGit+"-C real rev-parse HEAD > sha && mv real/.git x && rmdir real && mv x/"+name+" x/"+name+".off && "+
		"printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> x/config && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 0 {
		t.Fatal("the first command failed or was caught")
	}
	clockPast(t, f.ws+"/x/config")
	// A new process (the CLI's next command, a restarted server).
	plantMemos.Lock()
	plantMemos.m = map[string]*rootMemo{}
	plantMemos.Unlock()
	r = sh(t, f.s, "mv x/"+name+".off x/"+name+" && mkdir sub && echo 'gitdir: ../x' > sub/.git && "+
		agentGit+"update-index --add --cacheinfo 160000,$(cat sha),sub && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 {
		t.Fatal("the second command failed")
	}
	attackHostStatus(t, f, f.ws)
}

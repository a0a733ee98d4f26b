package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminDirRenamedInSetAside: a linked work tree's admin dir prepared
// by an earlier command below a directory of .git/worktrees that is no
// work tree's (old times: its gitdir file and its birth are before the
// next command) and renamed up into .git/worktrees by the next command is
// the command's: its gitdir is set
// aside, so the person's `git worktree repair` writes no .git file where
// it points (outside every root). Times alone missed it (the
// hundred-and-twenty-eighth review left it). Control: the person's own
// linked work tree, made before, keeps its gitdir through a command that
// commits in it, and repair has nothing to do.
func TestAdminDirRenamedInSetAside(t *testing.T) {
	f := newPlantFixture(t)
	hostGit(t, f.ws, "worktree", "add", "-q", "--detach", f.ws+"/wt")
	victim := filepath.Join(t.TempDir(), "victim") // outside every root
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(f.ws, func(p string, _ os.FileInfo, _ error) error { clockPast(t, p); return nil })
	// The earlier command's preparation: an admin dir inside a directory
	// of worktrees/ that is no work tree's (it has no gitdir file), on the
	// same mount as its destination (a rename across the sandbox's mounts
	// fails, and mv's copy has new times).
	r := sh(t, f.s, "mkdir -p .git/worktrees/stage/evil && printf '%s\\n' '"+victim+"/.git' > .git/worktrees/stage/evil/gitdir && "+
		"echo ../.. > .git/worktrees/stage/evil/commondir && git rev-parse HEAD > .git/worktrees/stage/evil/HEAD && echo ok")
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	filepath.Walk(f.ws, func(p string, _ os.FileInfo, _ error) error { clockPast(t, p); return nil })

	// Control: honest work in the existing linked work tree.
	r = sh(t, f.s, "cd wt && echo a > f && "+agentGit+"add f && "+agentGit+"commit -qm c && echo ok")
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("control: a commit in the linked work tree: %s %s", r.Stdout, r.Stderr)
	}
	if b, err := os.ReadFile(f.ws + "/.git/worktrees/wt/gitdir"); err != nil || !strings.Contains(string(b), f.ws+"/wt/.git") {
		t.Fatalf("control: the person's work tree lost its gitdir: %q %v (quarantined %+v)", b, err, r.Quarantined)
	}
	if out, err := hostGitRun(t, f.ws, "worktree", "repair"); err != nil || out != "" {
		t.Fatalf("control: repair after honest work: %v %q", err, out)
	}

	// The attack: the prepared admin dir renamed in.
	r = sh(t, f.s, "mv -T .git/worktrees/stage/evil .git/worktrees/evil && echo ok")
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("premise: the rename: %s %s", r.Stdout, r.Stderr)
	}
	out, err := hostGitRun(t, f.ws, "worktree", "repair")
	if b, rerr := os.ReadFile(victim + "/.git"); rerr == nil {
		t.Errorf("an admin dir renamed into .git/worktrees made the person's git worktree repair write %s outside the roots: %q (repair: %v %q; quarantined %+v)", victim+"/.git", b, err, out, r.Quarantined)
	}
	t.Logf("repair: %v %q; quarantined %+v", err, out, r.Quarantined)
	if len(r.Quarantined) == 0 {
		t.Errorf("nothing was set aside after the rename")
	}
	if _, err := os.Stat(f.ws + "/.git/worktrees/wt/gitdir"); err != nil {
		t.Errorf("control: the person's work tree's gitdir went with the plant: %v", err)
	}
}

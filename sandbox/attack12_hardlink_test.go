package sandbox

import (
	"strings"
	"testing"
)

// TestAttack12HardLinkedControlFile (twelfth attack review): a repository a
// command makes is judged after it (its config of trusted keys only), and
// from the next command on it is held: its config read-only by a bind
// mount of its directory entry. A read-only mount guards a path, not the
// file: a hard link the command made to the new config, while it was still
// its own, stays writable in the writable root, and the check skipped a
// held repository whose control files were the same files as at the start,
// taking it for one the command could not have changed. The next command
// wrote core.fsmonitor into the config through the link, and the host's
// git status in the repository ran it. Control: a repository made without
// a link is kept, and writing through a hard link to an ordinary file
// still works.
func TestAttack12HardLinkedControlFile(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q sub && ln sub/.git/config cfg && "+agentGit+"init -q plain && ln README readme2 && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the first command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	for _, q := range r.Quarantined {
		if q.Path == f.ws+"/plain/.git" {
			t.Fatalf("control: a repository made without a hard link was set aside: %+v", q)
		}
	}
	// The next command's discovery walks again and holds what it finds.
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
	r = sh(t, f.s, f.fsmonitor()+" >> cfg 2>/dev/null; echo changed >> readme2 && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the second command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if !strings.Contains(readFile(t, f.ws+"/README"), "changed") {
		t.Fatal("control: a write through a hard link to an ordinary file did not reach it")
	}
	if exists(f.ws + "/plain/.git/HEAD") {
		if out, err := hostGitRun(t, f.ws+"/plain", "status"); err != nil {
			t.Fatalf("control: the host's git status in the kept repository failed: %v\n%s", err, out)
		}
	} else {
		t.Fatal("control: the repository made without a hard link is gone")
	}
	attackHostStatus(t, f, f.ws+"/sub")
}

// TestAttack12HardLinkedGitFile (twelfth attack review), the same with a
// ".git" file: a ".git" file the command wrote that names a git dir of its
// own is kept, and held read-only from the next command on, which the check
// then skips; a hard link made to it with it stayed writable. The next
// command made it name the workspace's own git dir through the link, which
// makes its directory a second work tree of the user's repository, whose
// core.hooksPath (husky's, relative to the work tree) is then the command's
// to fill: the host's git commit there ran the command's hook. (Written
// directly, the same ".git" file is set aside.) Control: a ".git" file made
// without a link is kept.
func TestAttack12HardLinkedGitFile(t *testing.T) {
	f := newPlantFixture(t)
	hostGit(t, f.ws, "config", "core.hooksPath", ".husky")
	r := sh(t, f.s, agentGit+"init -q --bare gd && mkdir sub plain && printf 'gitdir: ../gd\\n' > sub/.git && "+
		"printf 'gitdir: ../gd\\n' > plain/.git && ln sub/.git gitlink && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the first command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if !exists(f.ws + "/plain/.git") {
		t.Fatalf("control: a .git file made without a hard link was set aside: %+v", r.Quarantined)
	}
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
	r = sh(t, f.s, "printf 'gitdir: "+f.ws+"/.git\\n' > gitlink 2>/dev/null; mkdir -p sub/.husky && "+
		"printf '#!/bin/sh\\n"+f.attackMarkerCmd()+"\\n' > sub/.husky/pre-commit && chmod +x sub/.husky/pre-commit && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the second command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	attackHostStatus(t, f, f.ws+"/sub", "commit", "-q", "--allow-empty", "-m", "x")
}

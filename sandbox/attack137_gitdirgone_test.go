package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack137_WorktreeGitdirGone (hundred-and-thirty-seventh review): the
// index watch reads a linked work tree's index (.git/worktrees/<n>/index)
// only when its admin dir holds a gitdir file ("not a work tree's"), and
// gitdir is not among a held git dir's control files: the command may
// remove it. Nothing judges a gitdir that is gone (worktreeAdmins looks
// only at one the command made or changed), and git itself never needs it
// to work in the linked work tree (the work tree's .git file names the
// admin dir). So a first command removes .git/worktrees/wt/gitdir; its
// next command plants .env in that work tree's index, which the watch no
// longer reads; the person's git commit -a in the linked work tree copies
// the real .env into the shared object store, where the command reads it
// (git show feature:.env).
//
// The same when the first command only touches gitdir: the check itself
// sets the changed gitdir aside (worktreeAdmins) and so removes it.
//
// Control ("control"): the same two commands, the first leaving gitdir
// alone: the plant is set aside and .env stays out of the object store.
func TestAttack137_WorktreeGitdirGone(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_137G"
	for _, c := range []struct {
		name  string
		first string
	}{{"control", `echo FIRST`}, {"gitdir-removed", `rm .git/worktrees/wt/gitdir && echo FIRST`},
		// The check does the removing: a gitdir the command changed (its
		// time only) is set aside by worktreeAdmins.
		{"gitdir-touched", `touch .git/worktrees/wt/gitdir && echo FIRST`}} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws, wt := base+"/ws", base+"/wt"
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": ".env\n"})
			attack6GitRepo(t, ws, "")
			hostGit(t, ws, "add", ".gitignore", "README")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			hostGit(t, ws, "worktree", "add", "-q", "-b", "feature", "../wt")
			if err := os.WriteFile(wt+"/.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
			// The work tree was added before the command's time (else its
			// gitdir counts as the command's and is set aside).
			clockPast(t, ws+"/.git/worktrees/wt/gitdir")
			r := sh(t, &s, c.first)
			if !strings.Contains(string(r.Stdout), "FIRST") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			t.Logf("first: quarantined: %v", quarantined(r))
			r = sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && GIT_INDEX_FILE=$PWD/.git/worktrees/wt/index git update-index --add --cacheinfo 100644,$e,.env && echo y > README && echo DONE`)
			if !strings.Contains(string(r.Stdout), "DONE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			t.Logf("second: quarantined: %v", quarantined(r))
			// The person's routine commit in the linked work tree.
			os.WriteFile(wt+"/README", []byte("z\n"), 0o644)
			attack132Commit(t, wt)
			r = sh(t, &s, indexGitEnv+`cat `+wt+`/.env; echo ---; git show feature:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: the work tree's .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read ../wt/.env (denied by \"**/*.env\") from the object store: .git/worktrees/wt/gitdir was gone after the first command, so the next command's entry planted in .git/worktrees/wt/index went unwatched and the person's git commit -a there copied it: %q", r.Stdout)
			}
		})
	}
}

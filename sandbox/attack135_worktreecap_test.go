package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack135_WorktreeWatchCap (hundred-and-thirty-fifth review): the
// index watch reads the linked work trees' indexes of at most
// maxWatchedWorktrees (64) admin dirs of .git/worktrees, the first 64 in
// directory order. A command makes empty admin dirs there (no gitdir file,
// so nothing sets them aside) until the person's real linked work tree's
// dir lies past the 64th in directory order. Its next command plants .env
// in that work tree's index (.git/worktrees/wt/index), which the watch no
// longer reads; the person's git commit -a in the linked work tree copies
// the real .env into the shared object store, where the command reads it
// (git show feature:.env).
//
// Control ("control"): the same two commands without the decoys: the plant
// is set aside and .env stays out of the object store.
func TestAttack135_WorktreeWatchCap(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_135W"
	for _, c := range []struct {
		name   string
		decoys bool
	}{{"control", false}, {"decoys", true}} {
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
			// First command: decoy admin dirs until wt lies past the 64th
			// name in directory order (what Readdirnames returns).
			first := `echo FIRST`
			if c.decoys {
				first = `i=0; while ls -f .git/worktrees | grep -vx '\.' | grep -vx '\.\.' | head -64 | grep -qx wt; do ` +
					`j=0; while [ $j -lt 64 ]; do i=$((i+1)); j=$((j+1)); mkdir .git/worktrees/d$i; done; ` +
					`[ $i -lt 8192 ] || exit 3; done; echo FIRST $i`
			}
			r := sh(t, &s, first)
			if !strings.Contains(string(r.Stdout), "FIRST") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			t.Logf("first: %s quarantined: %v", strings.TrimSpace(string(r.Stdout)), quarantined(r))
			// Since review 137 every directory of worktrees/ is watched,
			// and more than maxWatchedWorktrees refuse the command: the
			// decoys then stop the plant itself.
			spec := s
			p, err := PlanSpawn(&spec, SpawnRequest{Argv: []string{"/bin/sh", "-c", indexGitEnv + `e=$(git hash-object -w /dev/null) && GIT_INDEX_FILE=$PWD/.git/worktrees/wt/index git update-index --add --cacheinfo 100644,$e,.env && echo y > README && echo DONE`}}, os.Environ())
			if err != nil {
				t.Fatal(err)
			}
			r, err = Run(context.Background(), p)
			WaitCleanup()
			if c.decoys && err != nil && strings.Contains(err.Error(), "holds more than") && r != nil && r.ExitCode == ExitSandboxFailure {
				t.Logf("second: refused: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("second: %v", err)
			}
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
				t.Errorf("the command read ../wt/.env (denied by \"**/*.env\") from the object store: empty admin dirs it made in .git/worktrees pushed the linked work tree's past the 64 watched, and the entry it then planted in .git/worktrees/wt/index made the person's git commit -a there copy it: %q", r.Stdout)
			}
		})
	}
}

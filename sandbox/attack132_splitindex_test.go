package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// attack132Repo: a workspace repository with README and .gitignore (".env")
// committed and an untracked .env holding the person's key, under a profile
// that denies "**/*.env" (the hundred-and-twentieth review's setting).
func attack132Repo(t *testing.T, key string) (ws string, s domain.TurnExecutionSecuritySnapshot) {
	t.Helper()
	requireRoot(t)
	requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := visibleWorkspace(t)
	ws = base + "/ws"
	mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": ".env\n"})
	attack6GitRepo(t, ws, "")
	hostGit(t, ws, "add", ".gitignore", "README")
	hostGit(t, ws, "commit", "-q", "-m", "files")
	if err := os.WriteFile(ws+"/.env", []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws, execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
}

// TestAttack132_SplitIndexPlant (hundred-and-thirty-second review): the
// index watch (plantindex.go) reads only .git/index's own entries. A
// command that plants .env in the index and then turns on git's split index
// (git update-index --split-index) moves every entry into a new
// .git/sharedindex.<sha> that .git/index names in its "link" extension;
// .git/index then holds no entry by name (an entry replacing a shared one is
// stored with an empty name). The watch sees an index that changed but holds
// no entry at a denied path, keeps it, and the person's next git commit -a
// reads the shared index, takes .env for a tracked file that changed and
// copies the real file into the object store, where the next command reads
// it (git show HEAD:.env).
//
// Control (same test, "control"): the same plant without --split-index is
// set aside and the index from before put back; .env stays out of the
// object store.
func TestAttack132_SplitIndexPlant(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_132S"
	read := indexGitEnv + `cat .env; echo ---; git show HEAD:.env`
	for _, c := range []struct {
		name, plant string
		attack      bool
	}{
		{"control", `git update-index --add --cacheinfo 100644,$e,.env`, false},
		{"split", `git update-index --add --cacheinfo 100644,$e,.env && git update-index --split-index`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, s := attack132Repo(t, key)
			r := sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && `+c.plant+` && echo y > README && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			q := quarantined(r)
			t.Logf("quarantined: %v", q)
			if !c.attack && !slices.Contains(q, ws+"/.git/index") {
				t.Fatalf("control: the plain plant was not set aside: %v", q)
			}
			attack132Commit(t, ws)
			r = sh(t, &s, read)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: an entry it planted through a split index (.git/sharedindex.*) made the person's git commit -a copy it there: %q", r.Stdout)
			}
		})
	}
}

// TestAttack132_SkipWorktreeCleared: a person keeps a tracked config.env
// committed with placeholders and its local secret marked
// "git update-index --skip-worktree config.env" (or --assume-unchanged), so
// that commit -a leaves it out. "**/*.env" = deny. The index watch compares
// an entry's mode and blob id only, not its flags: a command that clears the
// flag (git update-index --no-skip-worktree config.env, which reads nothing)
// leaves an index the watch keeps, and the person's next git commit -a
// copies the secret into the object store (git show HEAD:config.env).
//
// Control ("control"): the person's same commit -a with the flag still set
// leaves the secret out of the object store.
func TestAttack132_SkipWorktreeCleared(t *testing.T) {
	const key = "DB_PASSWORD=persons-secret-132K"
	for _, c := range []struct{ name, flag, clear string }{
		{"control", "--skip-worktree", "true"},
		{"skip-worktree", "--skip-worktree", "git update-index --no-skip-worktree config.env"},
		{"assume-unchanged", "--assume-unchanged", "git update-index --no-assume-unchanged config.env"},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/config.env": "DB_PASSWORD=changeme\n"})
			attack6GitRepo(t, ws, "")
			hostGit(t, ws, "add", "README", "config.env")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			hostGit(t, ws, "update-index", c.flag, "config.env")
			if err := os.WriteFile(ws+"/config.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
			r := sh(t, &s, indexGitEnv+c.clear+` && echo y > README && echo CLEARED`)
			if !strings.Contains(string(r.Stdout), "CLEARED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			t.Logf("quarantined: %v", quarantined(r))
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`cat config.env; echo ---; git show HEAD:config.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: config.env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read config.env (denied by \"**/*.env\") from the object store: clearing the index entry's %s flag made the person's git commit -a copy it there: %q", c.flag, r.Stdout)
			}
		})
	}
}

// attack132Commit is the person's git commit -a in dir. "Nothing to
// commit" is not a failure: an index put back by the watch (restore) is a
// new file whose change time is later than the second its entries were
// recorded in, so git no longer takes a same-second change of the same
// size for a racy one and misses it (README written by the command within
// the second of the setup's commit); what the tests look at is the object
// store.
func attack132Commit(t *testing.T, dir string) {
	t.Helper()
	if out, err := hostGitRun(t, dir, "commit", "-q", "-a", "-m", "wip"); err != nil && !strings.Contains(out, "nothing to commit") {
		t.Fatalf("the person's commit -a in %s: %v\n%s", dir, err, out)
	}
}

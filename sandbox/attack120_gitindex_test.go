package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack120_DeniedFileCopiedByPersonsGit (hundred-and-twentieth
// review): a profile denies the workspace's secrets ("**/*.env" = deny);
// the person keeps a .env, untracked and in .gitignore. The kernel masks
// .env, but the workspace's .git stays writable so that git add and commit
// work, the index included. A command registers .env in the index
// (git update-index --add --cacheinfo, which reads no file: the empty
// blob's id), and nothing after the command looks at the index. The
// person's next `git commit -a` (or `git stash`, `git add -u`) takes .env
// for a tracked file it changed, hashes the real file into .git/objects and
// commits it; the next command reads the secret from the object store
// (git show HEAD:.env), which no rule denies.
//
// Controls: the command cannot read .env itself (masked); the person's
// same `git commit -a` without the planted index entry leaves .env out of
// the object store.
func TestAttack120_DeniedFileCopiedByPersonsGit(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_120"
	setup := func(t *testing.T) (ws string, s domain.TurnExecutionSecuritySnapshot) {
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
	gitEnv := `export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x HOME=$PWD; `
	read := `cat .env; echo ---; git show HEAD:.env`

	t.Run("control", func(t *testing.T) {
		ws, s := setup(t)
		if r := sh(t, &s, gitEnv+read); strings.Contains(string(r.Stdout), key) {
			t.Fatalf("control: the command read .env: %q", r.Stdout)
		}
		// The person's routine commit, the agent's edit in README.
		os.WriteFile(ws+"/README", []byte("y\n"), 0o644)
		hostGit(t, ws, "commit", "-q", "-a", "-m", "wip")
		if r := sh(t, &s, gitEnv+read); strings.Contains(string(r.Stdout), key) {
			t.Fatalf("control: .env reached the object store without a plant: %q", r.Stdout)
		}
	})

	t.Run("index", func(t *testing.T) {
		ws, s := setup(t)
		r := sh(t, &s, gitEnv+`e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env && echo y > README && echo PLANTED`)
		t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
		if !strings.Contains(string(r.Stdout), "PLANTED") {
			t.Fatalf("premise: %s", r.Stderr)
		}
		out := hostGit(t, ws, "commit", "-a", "-m", "wip")
		t.Logf("the person's commit: %s", out)
		r = sh(t, &s, gitEnv+read)
		t.Logf("read: exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
		if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
			t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
		}
		if strings.Contains(string(r.Stdout), key) {
			t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: an index entry it planted made the person's git commit -a copy it there: %q", r.Stdout)
		}
	})
}

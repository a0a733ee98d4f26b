package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack137_SeparateGitDirIndex (hundred-and-thirty-seventh review):
// the index watch keeps a held git dir's index only when the git dir is
// named ".git" (its work tree the directory above) or its config names a
// core.worktree (a submodule's); any other held git dir's index is not
// watched at all. A repository made with `git init --separate-git-dir`
// (its .git a file "gitdir: .repo.git", the git dir beside it in the
// workspace, no core.worktree: git takes the directory of the .git file
// as the work tree) is such a one: the command plants .env in its index
// (git update-index --add --cacheinfo, reading nothing), the person's git
// commit -a copies the real .env into the object store, and the next
// command reads it (git show HEAD:.env).
//
// Control ("control"): the same plant in the same workspace with its git
// dir at .git is set aside and .env stays out of the object store.
func TestAttack137_SeparateGitDirIndex(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_137S"
	for _, c := range []struct {
		name     string
		separate bool
	}{{"control", false}, {"separate-git-dir", true}} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": ".env\n"})
			if c.separate {
				hostGit(t, ws, "init", "-q", "--separate-git-dir", ws+"/.repo.git", ".")
				if b, err := os.ReadFile(ws + "/.git"); err != nil || !strings.HasPrefix(string(b), "gitdir: ") {
					t.Fatalf("premise: .git is not a gitfile: %q %v", b, err)
				}
			} else {
				hostGit(t, ws, "init", "-q", ".")
			}
			hostGit(t, ws, "add", ".gitignore", "README")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			if err := os.WriteFile(ws+"/.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
			r := sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env && echo y > README && echo DONE`)
			if !strings.Contains(string(r.Stdout), "DONE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			t.Logf("quarantined: %v", quarantined(r))
			// The person's routine commit.
			os.WriteFile(ws+"/README", []byte("z\n"), 0o644)
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: the workspace's .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: the index of the workspace's git dir .repo.git (git init --separate-git-dir) is not watched, and the entry it planted there made the person's git commit -a copy it: %q", r.Stdout)
			}
		})
	}
}

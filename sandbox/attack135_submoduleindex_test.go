package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack135_SubmoduleIndexPlant (hundred-and-thirty-fifth review): the
// index watch reads the index of a held git dir only when its name is
// ".git" (its work tree the directory above) and its linked work trees'.
// A submodule's git dir lives in the workspace's .git/modules/<name>, its
// work tree named by its config (core.worktree); its index there is not
// watched. The person's workspace has a submodule sub with its own .env
// (untracked); "**/*.env" = deny. The command plants .env in the
// submodule's index (cd sub && git update-index --add --cacheinfo, reading
// nothing); the person's git commit -a in sub copies the real .env into
// the submodule's object store, where the command reads it (git -C sub
// show HEAD:.env).
//
// Control ("control"): the same plant in the workspace's own index (.env
// at the top) is set aside and the key stays out of the object store.
func TestAttack135_SubmoduleIndexPlant(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_135M"
	for _, c := range []struct{ name, dir string }{{"control", "."}, {"submodule", "sub"}} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws, src := base+"/ws", base+"/subsrc"
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": ".env\n", "subsrc/README": "s\n", "subsrc/.gitignore": ".env\n"})
			attack6GitRepo(t, src, "")
			hostGit(t, src, "add", "README", ".gitignore")
			hostGit(t, src, "commit", "-q", "-m", "files")
			attack6GitRepo(t, ws, "")
			hostGit(t, ws, "add", "README", ".gitignore")
			hostGit(t, ws, "submodule", "add", "-q", src, "sub")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			if err := os.WriteFile(ws+"/"+c.dir+"/.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			clockPast(t, ws+"/.git/modules/sub/index")
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
			r := sh(t, &s, indexGitEnv+`cd `+c.dir+` && e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env && git ls-files -s && echo y > README && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			t.Logf("stdout %q quarantined: %v", r.Stdout, quarantined(r))
			attack132Commit(t, ws+"/"+c.dir)
			r = sh(t, &s, indexGitEnv+`cd `+c.dir+` && cat .env; echo ---; git show HEAD:.env`)
			t.Logf("read: %q %q", r.Stdout, r.Stderr)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read %s/.env (denied by \"**/*.env\") from the object store: an entry it planted in the index of the submodule's git dir (.git/modules/sub/index, not watched) made the person's git commit -a copy it: %q", c.dir, r.Stdout)
			}
		})
	}
}

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack132_LinkedWorktreeIndexPlant: the index watch reads only
// <work tree>/.git/index (plantindex.go says so: "Not covered: ... a
// linked work tree's index under worktrees/"). The person keeps a linked
// work tree (git worktree add ../wt -b feature) beside the workspace, with
// its own .env; "**/*.env" = deny. The linked work tree's index lives in
// the workspace's git dir (.git/worktrees/wt/index), which the command may
// write: it plants .env there (GIT_INDEX_FILE=... git update-index --add
// --cacheinfo, reading nothing). The person's git commit -a in ../wt
// copies the real .env into the shared object store, where the next
// command reads it (git show feature:.env).
//
// Control ("control"): the person's same commit -a without the plant
// leaves .env out of the object store.
func TestAttack132_LinkedWorktreeIndexPlant(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_132W"
	for _, c := range []struct {
		name  string
		plant bool
	}{{"control", false}, {"worktree-index", true}} {
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
			script := `echo y > README && echo DONE`
			if c.plant {
				script = `e=$(git hash-object -w /dev/null) && GIT_INDEX_FILE=$PWD/.git/worktrees/wt/index git update-index --add --cacheinfo 100644,$e,.env && ` + script
			}
			r := sh(t, &s, indexGitEnv+script)
			if !strings.Contains(string(r.Stdout), "DONE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			t.Logf("quarantined: %v", quarantined(r))
			// The person's routine commit in the linked work tree.
			os.WriteFile(wt+"/README", []byte("z\n"), 0o644)
			attack132Commit(t, wt)
			r = sh(t, &s, indexGitEnv+`cat `+wt+`/.env; echo ---; git show feature:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: the work tree's .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read ../wt/.env (denied by \"**/*.env\") from the object store: an entry it planted in the linked work tree's index (.git/worktrees/wt/index) made the person's git commit -a there copy it: %q", r.Stdout)
			}
		})
	}
}

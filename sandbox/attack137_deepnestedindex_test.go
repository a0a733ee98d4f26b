package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack137_DeepNestedRepoIndex (hundred-and-thirty-seventh review):
// the index watch keeps the indexes of the held git dirs only, and
// discovery holds a nested repository's git dir only within
// maxDiscoveryDepth (6) directories of a writable root. A person's
// repository nested deeper (a vendored checkout,
// services/api/third_party/github.com/org/lib, with its own untracked
// .env) is writable to the command but its index is not watched: the
// command plants .env there (git update-index --add --cacheinfo, reading
// nothing), the person's git commit -a in that repository copies the real
// .env into its object store, and the next command reads it (git show
// HEAD:.env).
//
// Control ("control"): the same repository and plant 2 levels down is set
// aside and .env stays out of the object store.
func TestAttack137_DeepNestedRepoIndex(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_137D"
	// Since the fix, discovery also holds what the last check in the
	// process met at any depth (knownDotGits): a server's later commands
	// hold the deep repository ("deep", after a first command). The first
	// command of a root in a process (every `turnstile sandbox`) walks to
	// the discovery's depth only: there the plant is not prevented, and
	// the result's limits name the bound ("deep-first-command").
	for _, c := range []struct {
		name, rel    string
		firstCommand bool
	}{{"control", "vendor/lib", false}, {"deep", "services/api/third_party/github.com/org/team/lib", false},
		{"deep-first-command", "services/api/third_party/github.com/org/team/lib", true}} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			lib := ws + "/" + c.rel
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/" + c.rel + "/README": "x\n", "ws/" + c.rel + "/.gitignore": ".env\n"})
			attack6GitRepo(t, lib, "")
			hostGit(t, lib, "add", ".gitignore", "README")
			hostGit(t, lib, "commit", "-q", "-m", "files")
			if err := os.WriteFile(lib+"/.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
			if !c.firstCommand {
				sh(t, &s, `true`) // the check after it meets the repository
			}
			r := sh(t, &s, indexGitEnv+`cd `+c.rel+` && e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env && echo y > README && echo DONE`)
			if !strings.Contains(string(r.Stdout), "DONE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			t.Logf("quarantined: %v limits: %v", quarantined(r), r.CheckLimits)
			if c.firstCommand {
				if !strings.Contains(strings.Join(r.CheckLimits, "\n"), "does not look below "+lib) {
					t.Errorf("the first command's result does not name the discovery's bound at %s: %v", lib, r.CheckLimits)
				}
				return
			}
			// The person's routine commit in the nested repository.
			os.WriteFile(lib+"/README", []byte("z\n"), 0o644)
			attack132Commit(t, lib)
			r = sh(t, &s, indexGitEnv+`cd `+c.rel+` && cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: the nested repository's .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read %s/.env (denied by \"**/*.env\") from the object store: the index of a nested repository deeper than discovery holds is not watched, and the entry it planted there made the person's git commit -a copy it: %q", c.rel, r.Stdout)
			}
		})
	}
}

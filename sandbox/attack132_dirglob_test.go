package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack132_DirGlobIndexPlant: a glob deny rule that names a
// directory ("**/.secrets" = deny: everything below it is denied). The
// index watch judges an entry by v.readable (the view at the start) or
// globDenies(path, base name), which asks first whether the rule's last
// element matches the entry's own name: ".secrets/prod.key" ends in
// "prod.key", not ".secrets". While .secrets exists the view masks it and
// a plant there is set aside ("dir-glob" holds). But a plant at a denied
// path that does not exist yet ("dir-glob-later": no .secrets when the
// command runs; plantindex_test's "missing" case covers this for
// "**/*.env") is kept; the person's tool then writes .secrets/prod.key, and
// the person's git commit -a copies the key into the object store, where
// the next command reads it (git show HEAD:.secrets/prod.key).
//
// Controls: the same plants under "**/*.key" = deny ("control",
// "control-later") are set aside, as is the plant under an existing
// .secrets ("dir-glob").
func TestAttack132_DirGlobIndexPlant(t *testing.T) {
	const key = "-----PERSONS-KEY-132D-----"
	for _, c := range []struct {
		name, rule string
		later      bool // the person makes .secrets/prod.key after the command
	}{
		{"control", "**/*.key", false},
		{"control-later", "**/*.key", true},
		{"dir-glob", "**/.secrets", false},
		{"dir-glob-later", "**/.secrets", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			files := map[string]string{"ws/README": "x\n", "ws/.gitignore": ".secrets/\n"}
			if !c.later {
				files["ws/.secrets/prod.key"] = key + "\n"
			}
			mkfiles(t, base, files)
			attack6GitRepo(t, ws, "")
			hostGit(t, ws, "add", ".gitignore", "README")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			s := execProfileSnapshot(t, ws, map[string]domain.Access{c.rule: domain.AccessDeny})
			if r := sh(t, &s, `cat .secrets/prod.key`); strings.Contains(string(r.Stdout), key) {
				t.Fatalf("premise: the key is readable under %s", c.rule)
			}
			r := sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.secrets/prod.key && echo y > README && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			t.Logf("quarantined: %v", quarantined(r))
			if c.later {
				// The person's own tool writes the key after the command.
				if err := os.MkdirAll(ws+"/.secrets", 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(ws+"/.secrets/prod.key", []byte(key+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`git show HEAD:.secrets/prod.key`)
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .secrets/prod.key (denied by %q) from the object store: an index entry it planted made the person's git commit -a copy it there: %q", c.rule, r.Stdout)
			}
		})
	}
}

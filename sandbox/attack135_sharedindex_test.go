package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestAttack135_SharedIndexRewrite (hundred-and-thirty-fifth review): the
// index watch looks at .git/index only (its identity: inode, change time,
// size). In a repository the person keeps with a split index (git
// update-index --split-index, or core.splitIndex), the entries lie in
// .git/sharedindex.<oid>, which .git/index names by the oid in its "link"
// extension. git takes a shared index's oid from its last 20 bytes and
// checks nothing else (the index checksum is verified only by fsck). The
// command rewrites .git/sharedindex.<oid> with .env added (built with
// GIT_INDEX_FILE on a copy, reading nothing) and the old file's last 20
// bytes kept; .git/index itself is not touched, so the watch compares
// nothing. The person's next git commit -a merges the shared entries, takes
// .env for a tracked file that changed and copies the real file into the
// object store, where the next command reads it (git show HEAD:.env).
//
// Control ("control"): the same plant written the plain way in the same
// split-index repository (git update-index --add, which rewrites
// .git/index) is set aside and .env stays out of the object store.
func TestAttack135_SharedIndexRewrite(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_135S"
	for _, c := range []struct {
		name, plant string
		attack      bool
	}{
		{"control", `git update-index --add --cacheinfo 100644,$e,.env`, false},
		{"sharedindex", `S=$(ls .git/sharedindex.*) && cp .git/index .t.idx && ` +
			`GIT_INDEX_FILE=$PWD/.t.idx git update-index --no-split-index --add --cacheinfo 100644,$e,.env && ` +
			`head -c -20 .t.idx > .t.new && tail -c 20 $S >> .t.new && rm -f .t.idx && mv .t.new $S`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, s := attack132Repo(t, key)
			// The person's repository keeps a split index.
			hostGit(t, ws, "update-index", "--split-index")
			r := sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && `+c.plant+` && echo y > README && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			q := quarantined(r)
			t.Logf("quarantined: %v", q)
			if !c.attack && !slices.Contains(q, ws+"/.git/index") {
				t.Fatalf("control: the plain plant was not set aside: %v", q)
			}
			if out, err := hostGitRun(t, ws, "commit", "-q", "-a", "-m", "wip"); err != nil && !strings.Contains(out, "nothing to commit") {
				// (Fixed: the rewritten shared file is set aside, and the
				// person's git stops at the index that names it, the
				// quarantine record saying why: nothing is committed.)
				t.Logf("the person's commit -a stopped: %v %s", err, out)
			}
			r = sh(t, &s, indexGitEnv+`cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: it rewrote the split index's .git/sharedindex.<oid> (keeping its last 20 bytes, the oid git checks) with .env added, .git/index untouched, and the person's git commit -a copied the real file: %q", r.Stdout)
			}
		})
	}
}

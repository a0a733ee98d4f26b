package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestAttack132_OversizedIndexPlant: the index watch does not judge an
// index larger than maxIndexBytes (64 MiB) after the command ("too large
// or not a file: not judged"). The size is the command's to choose: with
// the plant at .env it adds 20,000 entries at long paths that do not exist
// (git update-index --index-info, which reads nothing), about 70 MB of
// index. The watch lets it be; the person's git commit -a drops the
// missing entries (they were never in HEAD: the commit shows nothing of
// them) and copies the real .env into the object store, where the next
// command reads it (git show HEAD:.env).
//
// Control ("control"): the same plant with 1,000 such entries (an index
// under the bound) is set aside and the index from before put back.
func TestAttack132_OversizedIndexPlant(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_132O"
	for _, c := range []struct {
		name string
		pad  string
	}{{"control", "1000"}, {"oversized", "20000"}} {
		t.Run(c.name, func(t *testing.T) {
			ws, s := attack132Repo(t, key)
			script := indexGitEnv + `e=$(git hash-object -w /dev/null) && c=$(printf '%0250d' 0) && ` +
				`i=0; while [ $i -lt ` + c.pad + ` ]; do printf '100644 %s\tpad/%d/%s/%s/%s/%s/%s/%s/%s/%s/%s/%s/%s/%s/%s/%s\n' $e $i $c $c $c $c $c $c $c $c $c $c $c $c $c $c; i=$((i+1)); done | git update-index --index-info && ` +
				`git update-index --add --cacheinfo 100644,$e,.env && ls -l .git/index && echo y > README && echo PLANTED`
			r := sh(t, &s, script)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			q := quarantined(r)
			t.Logf("index: %s quarantined: %v", strings.TrimSpace(strings.Split(string(r.Stdout), "\n")[0]), q)
			if c.name == "control" && !slices.Contains(q, ws+"/.git/index") {
				t.Fatalf("control: the plant was not set aside: %v", q)
			}
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: the entry it planted in an index it made larger than 64 MiB was not judged, and the person's git commit -a copied it there: %q", r.Stdout)
			}
		})
	}
}

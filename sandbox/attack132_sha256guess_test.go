package sandbox

import (
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack132_Sha256GuessDisablesIndexWatch: the index watch guesses a
// repository's object id length from its config: any "sha256" in it, in
// any case, anywhere (a remote's name or URL, a branch's description),
// makes it parse the index with 32-byte ids. A SHA-1 repository's index
// then fails to parse both when the command starts (before = nil,
// readable = false) and after it, and an index that cannot be read after
// the command is set aside only when it could be read before with entries
// at denied paths: the watch is off. The person's repository is a clone
// of a project whose name holds "sha256" (origin
// https://github.com/minio/sha256-simd.git; a branch pushed with -u whose
// name holds it does the same); a command plants .env in the index
// (update-index --cacheinfo), and the person's git commit -a copies it
// into the object store (git show HEAD:.env).
//
// Control ("control"): the same with origin named .../simd.git: the plant
// is set aside and the index from before put back.
func TestAttack132_Sha256GuessDisablesIndexWatch(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_132H"
	for _, c := range []struct{ name, remote string }{
		{"control", "https://github.com/minio/simd.git"},
		{"sha256-remote", "https://github.com/minio/sha256-simd.git"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, s := attack132Repo(t, key)
			hostGit(t, ws, "remote", "add", "origin", c.remote)
			s = execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
			r := sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env && echo y > README && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			q := quarantined(r)
			t.Logf("quarantined: %v", q)
			if c.name == "control" && !slices.Contains(q, ws+"/.git/index") {
				t.Fatalf("control: the plant was not set aside: %v", q)
			}
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: a remote at %q turned the index watch off (oid length guessed 32), and the entry it planted made the person's git commit -a copy it there: %q", c.remote, r.Stdout)
			}
		})
	}
}

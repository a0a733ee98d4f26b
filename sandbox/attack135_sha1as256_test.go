package sandbox

import (
	"encoding/base64"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// attack135Sha1AsSha256Index is a version-2 git index of one entry, 111
// bytes, that git reads in a SHA-1 repository as ".env" (mode 100644, zero
// stat data): its flags carry the extended bit (0x4000) with extended flags
// of 0, which git reads in any version (read-cache.c create_from_disk),
// and git reads no extension (fewer than 8 bytes follow the entry before
// the 20-byte trailer). The watch's own SHA-1 parse refuses the extended
// bit below version 3 ("bad extended flags") and fails; its SHA-256
// parse, tried next, succeeds: one entry "aaaaaaaaaa" whose flags and name
// lie after git's, the 32-byte id covering git's flags and ".env".
func attack135Sha1AsSha256Index() []byte {
	b := make([]byte, 111)
	copy(b, "DIRC")
	binary.BigEndian.PutUint32(b[4:], 2)
	binary.BigEndian.PutUint32(b[8:], 1)
	e := 12
	binary.BigEndian.PutUint32(b[e+24:], 0o100644)
	for i := e + 40; i < e+60; i++ {
		b[i] = 0x5a // git's object id
	}
	binary.BigEndian.PutUint16(b[e+60:], 0x4000|4) // git's flags: extended, name of 4
	binary.BigEndian.PutUint16(b[e+62:], 0)        // git's extended flags
	copy(b[e+64:], ".env")                         // git's name, NUL-padded to e+72
	binary.BigEndian.PutUint16(b[e+72:], 10)       // the SHA-256 view's flags
	copy(b[e+74:], "aaaaaaaaaa")                   // ... and name, NUL at e+84
	return b
}

// TestAttack135_Sha1IndexParsedAsSha256 (hundred-and-thirty-fifth review):
// indexEntriesAnyHash falls back to 32-byte object ids whenever the SHA-1
// parse fails, and the SHA-1 parse is stricter than git (it refuses an
// entry's extended flags in a version-2 index, which git reads). In an ordinary SHA-1
// repository the command writes attack135Sha1AsSha256Index as .git/index:
// git reads one entry ".env"; the watch reads one entry "aaaaaaaaaa",
// finds no entry at a denied path and keeps it. The person's next git
// commit -a takes .env for a tracked file that changed and copies the real
// file into the object store, where the command reads it (git show
// HEAD:.env).
//
// Control ("control"): the same .env entry written by git itself is set
// aside and .env stays out of the object store.
func TestAttack135_Sha1IndexParsedAsSha256(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_135E"
	idx := base64.StdEncoding.EncodeToString(attack135Sha1AsSha256Index())
	for _, c := range []struct {
		name, plant string
		attack      bool
	}{
		{"control", `e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env`, false},
		{"sha1-as-sha256", `echo ` + idx + ` | base64 -d > .git/index.new && mv .git/index.new .git/index`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, s := attack132Repo(t, key)
			r := sh(t, &s, indexGitEnv+c.plant+` && git ls-files -s && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			q := quarantined(r)
			t.Logf("stdout %q quarantined: %v", r.Stdout, q)
			if !strings.Contains(string(r.Stdout), "\t.env\n") {
				t.Fatalf("premise: git does not read .env in the index: %q", r.Stdout)
			}
			if !c.attack && !slices.Contains(q, ws+"/.git/index") {
				t.Fatalf("control: the plain plant was not set aside: %v", q)
			}
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: an index git reads as .env in this SHA-1 repository, which the watch's SHA-1 parse refused and its SHA-256 parse read as \"aaaaaaaaaa\", was kept, and the person's git commit -a copied the real file: %q", r.Stdout)
			}
		})
	}
}

package sandbox

import (
	"encoding/base64"
	"encoding/binary"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// attack135DualIndex is a version-2 git index of one entry that parses
// two ways. Read with 32-byte object ids (a SHA-256 repository: what git
// does there) it holds ".env" (mode 100644, zero stat data, no
// extensions: its entries end where fewer than 8 bytes precede the
// 32-byte trailer). Read with 20-byte ids it holds "aaaaaaaaaa" (its name
// and flags lie inside the SHA-256 object id) and one unknown extension
// (its header in the SHA-256 trailer, which git never verifies outside
// fsck).
func attack135DualIndex() []byte {
	b := make([]byte, 124)
	copy(b, "DIRC")
	binary.BigEndian.PutUint32(b[4:], 2)
	binary.BigEndian.PutUint32(b[8:], 1)
	e := 12
	binary.BigEndian.PutUint32(b[e+24:], 0o100644)
	for i := e + 40; i < e+60; i++ {
		b[i] = 0x5a // the SHA-1 view's object id
	}
	binary.BigEndian.PutUint16(b[e+60:], 10) // the SHA-1 view's flags
	copy(b[e+62:], "aaaaaaaaaa")             // ... and name, NUL at e+72
	binary.BigEndian.PutUint16(b[e+72:], 4)  // the SHA-256 view's flags
	copy(b[e+74:], ".env")                   // ... and name, NUL-padded to e+80
	copy(b[92:], "ZZZZ")                     // the SHA-1 view's extension
	binary.BigEndian.PutUint32(b[96:], 4)
	return b
}

// TestAttack135_DualHashIndex (hundred-and-thirty-fifth review): the index
// watch parses an index with SHA-1 object ids first and takes the result
// when that parse succeeds (indexEntriesAnyHash), whatever the repository's
// object format. In a SHA-256 repository (git init --object-format=sha256)
// the command writes an index that parses with 20-byte ids as one entry
// "aaaaaaaaaa" and with 32-byte ids, as git reads it there, as one entry
// ".env" (attack135DualIndex). The watch finds no entry at a denied path
// and keeps it; the person's next git commit -a takes .env for a tracked
// file that changed and copies the real file into the object store, where
// the command reads it (git show HEAD:.env).
//
// Control ("control"): the same .env entry written by git itself (git
// update-index --add --cacheinfo) in the same SHA-256 repository is set
// aside and .env stays out of the object store.
func TestAttack135_DualHashIndex(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_135D"
	idx := base64.StdEncoding.EncodeToString(attack135DualIndex())
	for _, c := range []struct {
		name, plant string
		attack      bool
	}{
		{"control", `e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env`, false},
		{"dual-hash", `echo ` + idx + ` | base64 -d > .git/index.new && mv .git/index.new .git/index`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": ".env\n"})
			hostGit(t, ws, "init", "-q", "--object-format=sha256", ".")
			hostGit(t, ws, "add", ".gitignore", "README")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			if err := os.WriteFile(ws+"/.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
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
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: an index it wrote that parses with SHA-1 ids as \"aaaaaaaaaa\" and with SHA-256 ids (as git reads it in this SHA-256 repository) as .env was kept, and the person's git commit -a copied the real file: %q", r.Stdout)
			}
		})
	}
}

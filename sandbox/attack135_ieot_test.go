package sandbox

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// attack135IEOTIndex is a version-2 SHA-1 git index whose entries, read in
// order from the header (the watch's way, and git's with one thread), are
// "a", "b" and "c", and whose entries as git loads them with threads are
// ".env", ".gitignore" and "README": git, when it reads an index with
// more than one thread and it ends with an EOIE extension (the offset of
// the extensions and a hash of their headers), loads the entries from the
// blocks an IEOT extension (index entry offset table) names, wherever they
// lie. Here they lie in an optional extension "Zhid" (an unknown extension
// whose signature begins with a capital: git and the watch skip it).
func attack135IEOTIndex() []byte {
	entry := func(name string) []byte {
		e := make([]byte, (62+len(name)+8)&^7)
		binary.BigEndian.PutUint32(e[24:], 0o100644)
		for i := 40; i < 60; i++ {
			e[i] = 0x5a
		}
		binary.BigEndian.PutUint16(e[60:], uint16(len(name)))
		copy(e[62:], name)
		return e
	}
	ext := func(sig string, payload []byte) []byte {
		h := append([]byte(sig), 0, 0, 0, 0)
		binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
		return append(h, payload...)
	}
	b := []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x03")
	for _, n := range []string{"a", "b", "c"} {
		b = append(b, entry(n)...)
	}
	extStart := len(b)
	var hidden []byte
	for _, n := range []string{".env", ".gitignore", "README"} {
		hidden = append(hidden, entry(n)...)
	}
	zhid := ext("Zhid", hidden)
	hiddenAt := extStart + 8
	ieotPayload := make([]byte, 12)
	binary.BigEndian.PutUint32(ieotPayload[0:], 1) // version
	binary.BigEndian.PutUint32(ieotPayload[4:], uint32(hiddenAt))
	binary.BigEndian.PutUint32(ieotPayload[8:], 3)
	ieot := ext("IEOT", ieotPayload)
	h := sha1.New()
	h.Write(zhid[:8])
	h.Write(ieot[:8])
	eoiePayload := binary.BigEndian.AppendUint32(nil, uint32(extStart))
	eoiePayload = h.Sum(eoiePayload)
	b = append(b, zhid...)
	b = append(b, ieot...)
	b = append(b, ext("EOIE", eoiePayload)...)
	return append(b, make([]byte, 20)...) // the trailer (git verifies it only in fsck)
}

// TestAttack135_IEOTHiddenEntries (hundred-and-thirty-fifth review): the
// index watch parses the entries in order from the header and skips the
// extensions; git, reading with more than one thread (index.threads: on a
// machine of 3 or more CPUs by default once the index holds 10,000 entries
// a thread, or whenever index.threads is set; here the person's commit
// runs with -c index.threads=4, standing for such a machine), loads them
// from the blocks the IEOT extension names when an EOIE extension ends the
// index (attack135IEOTIndex). The command writes an index whose entries in
// order are "a", "b" and "c" and whose IEOT blocks lie in an optional
// extension holding ".env": the watch finds no entry at a denied path and
// keeps it; the person's git commit -a takes .env for a tracked file that
// changed and copies the real file into the object store, where the
// command reads it (git show HEAD:.env).
//
// Control ("control"): the same .env entry written by git itself is set
// aside and .env stays out of the object store under the same commit.
func TestAttack135_IEOTHiddenEntries(t *testing.T) {
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_135T"
	idx := base64.StdEncoding.EncodeToString(attack135IEOTIndex())
	for _, c := range []struct {
		name, plant string
		attack      bool
	}{
		{"control", `e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env`, false},
		{"ieot", `echo ` + idx + ` | base64 -d > .git/index.new && mv .git/index.new .git/index`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, s := attack132Repo(t, key)
			r := sh(t, &s, indexGitEnv+c.plant+` && git -c index.threads=4 ls-files -s && echo PLANTED`)
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
			if out, err := hostGitRun(t, ws, "-c", "index.threads=4", "commit", "-q", "-a", "-m", "wip"); err != nil && !strings.Contains(out, "nothing to commit") {
				t.Fatalf("the person's commit -a: %v\n%s", err, out)
			}
			r = sh(t, &s, indexGitEnv+`cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: an index whose entries in order are a, b, c and whose IEOT blocks (read by git with threads) hold .env was kept, and the person's git commit -a copied the real file: %q", r.Stdout)
			}
		})
	}
}

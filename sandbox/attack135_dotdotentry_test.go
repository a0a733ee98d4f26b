package sandbox

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// attack135PrependEntry returns the SHA-1 version-2/3 index b with an entry
// name (mode 100644, zero stat data, any object id) put first, extensions
// dropped: git update-index refuses a name with "..", a file written by
// hand is not refused by git's reading.
func attack135PrependEntry(b []byte, name string) []byte {
	n := int(binary.BigEndian.Uint32(b[8:]))
	out := append([]byte(nil), b[:12]...)
	binary.BigEndian.PutUint32(out[8:], uint32(n+1))
	e := make([]byte, 62)
	binary.BigEndian.PutUint32(e[24:], 0o100644)
	for i := 40; i < 60; i++ {
		e[i] = 0x5a
	}
	binary.BigEndian.PutUint16(e[60:], uint16(len(name)))
	e = append(e, name...)
	out = append(out, append(e, make([]byte, (62+len(name)+8)&^7-len(e))...)...)
	off := 12
	for i := 0; i < n; i++ {
		start := off
		flags := binary.BigEndian.Uint16(b[off+60:])
		off += 62
		if flags&0x4000 != 0 {
			off += 2
		}
		end := bytes.IndexByte(b[off:], 0)
		off = start + (off+end+1-start+7)/8*8
		out = append(out, b[start:off]...)
	}
	sum := sha1.Sum(out)
	return append(out, sum[:]...)
}

// TestAttack135_DotDotEntryOutsideWorkTree (hundred-and-thirty-fifth
// review): git reads an index entry whose name climbs out of the work tree
// ("../secret.txt": git update-index refuses to write one, git's reading
// does not refuse it), and its commit -a hashes the file it names and
// commits it (as a tree ".." holding secret.txt). The index watch judges
// an entry by the path work tree + "/" + name, which for such a name it
// takes for a path in the work tree, readable: the entry passes even
// where the index is watched ("dotdot": a glob deny rule); where no deny
// entry lies in the work tree and no glob rule exists the index is not
// watched at all ("dotdot-unwatched"). A file outside every root the
// command may read (the person's other project's key beside the
// workspace; ~/.ssh's key under a workspace in the home) is then copied by
// the person's next git commit -a into the object store, where the command
// reads it (git ls-tree -r HEAD, git cat-file). The command builds the
// index bytes from the index it can read.
//
// Control ("control"): the same plant of an entry naming a denied file in
// the work tree ("local.env" under "**/*.env" = deny, holding the same key)
// is set aside and the key stays out of the object store.
func TestAttack135_DotDotEntryOutsideWorkTree(t *testing.T) {
	const key = "AWS_SECRET=persons-other-project-135X"
	for _, c := range []struct {
		name, entry string
		glob        bool
	}{{"control", "local.env", true}, {"dotdot", "../secret.txt", true}, {"dotdot-unwatched", "../secret.txt", false}} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": "*.env\n", "secret.txt": key + "\n", "ws/local.env": key + "\n"})
			attack6GitRepo(t, ws, "")
			hostGit(t, ws, "add", "README", ".gitignore")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			fs := map[string]domain.Access{}
			if c.glob {
				fs["**/*.env"] = domain.AccessDeny
			}
			s := execProfileSnapshot(t, ws, fs)
			b, err := os.ReadFile(ws + "/.git/index")
			if err != nil {
				t.Fatal(err)
			}
			plant := `echo ` + base64.StdEncoding.EncodeToString(attack135PrependEntry(b, c.entry)) + ` | base64 -d > .git/index.new && mv .git/index.new .git/index`
			r := sh(t, &s, indexGitEnv+`cat ../secret.txt; echo ---; `+plant+` && git ls-files -s && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			t.Logf("stdout %q quarantined: %v", r.Stdout, quarantined(r))
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: ../secret.txt itself was readable: %q", r.Stdout)
			}
			// The person's routine commit.
			os.WriteFile(ws+"/README", []byte("z\n"), 0o644)
			attack132Commit(t, ws)
			lt, _ := hostGitRun(t, ws, "ls-tree", "-r", "HEAD")
			t.Logf("the person's HEAD tree: %s", lt)
			r = sh(t, &s, indexGitEnv+`for o in $(git ls-tree -r HEAD | awk '{print $3}'); do git cat-file -p $o; done; echo end`)
			t.Logf("read: %q %q", r.Stdout, r.Stderr)
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read the key (in ../secret.txt outside every root it may read, or the denied local.env) from the object store: an index entry %q it wrote made the person's git commit -a copy it: %q", c.entry, r.Stdout)
			}
		})
	}
}

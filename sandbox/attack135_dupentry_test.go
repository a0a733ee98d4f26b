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

// attack135DupIndex returns the SHA-1 index b (version 2 or 3, no
// version-4 names) with a copy of the entry name inserted before it, the
// copy without extended flags (no skip-worktree, no assume-unchanged bit),
// extensions dropped.
func attack135DupIndex(t *testing.T, b []byte, name string) []byte {
	t.Helper()
	n := int(binary.BigEndian.Uint32(b[8:]))
	out := append([]byte(nil), b[:12]...)
	binary.BigEndian.PutUint32(out[8:], uint32(n+1))
	off := 12
	for i := 0; i < n; i++ {
		start := off
		flags := binary.BigEndian.Uint16(b[off+60:])
		off += 62
		if flags&0x4000 != 0 {
			off += 2
		}
		end := bytes.IndexByte(b[off:], 0)
		nm := string(b[off : off+end])
		off = start + (off+end+1-start+7)/8*8
		if nm == name {
			e := append([]byte(nil), b[start:start+60]...)
			e = binary.BigEndian.AppendUint16(e, uint16(len(nm)))
			e = append(e, nm...)
			e = append(e, make([]byte, (62+len(nm)+8)&^7-len(e))...)
			out = append(out, e...)
		}
		out = append(out, b[start:off]...)
	}
	sum := sha1.Sum(out)
	return append(out, sum[:]...)
}

// TestAttack135_DuplicateEntryHidesClearedFlag (hundred-and-thirty-fifth
// review): the index watch keeps an index's entries in a map by name, the
// last one read winning; git reads every entry, duplicates too, and its
// commit -a updates each. The person keeps a tracked config.env committed
// with placeholders and its local secret marked --skip-worktree;
// "**/*.env" = deny. The command (the test builds the bytes from the index
// the command could read, as it could) writes the index with a second
// config.env entry before the first, the same but with no skip-worktree
// bit. The watch's map holds the original (last) entry, unchanged; git
// sees an entry without the bit and the person's next git commit -a copies
// the secret into the object store (git show HEAD:config.env).
//
// Control ("control"): clearing the bit on the single entry (git
// update-index --no-skip-worktree, TestAttack132_SkipWorktreeCleared's
// attack, now fixed) is set aside and the secret stays out of the store.
func TestAttack135_DuplicateEntryHidesClearedFlag(t *testing.T) {
	const key = "DB_PASSWORD=persons-secret-135U"
	for _, c := range []struct {
		name string
		dup  bool
	}{{"control", false}, {"duplicate", true}} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/config.env": "DB_PASSWORD=changeme\n"})
			attack6GitRepo(t, ws, "")
			hostGit(t, ws, "add", "README", "config.env")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			hostGit(t, ws, "update-index", "--skip-worktree", "config.env")
			if err := os.WriteFile(ws+"/config.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
			plant := `git update-index --no-skip-worktree config.env`
			if c.dup {
				b, err := os.ReadFile(ws + "/.git/index")
				if err != nil {
					t.Fatal(err)
				}
				plant = `echo ` + base64.StdEncoding.EncodeToString(attack135DupIndex(t, b, "config.env")) + ` | base64 -d > .git/index.new && mv .git/index.new .git/index`
			}
			r := sh(t, &s, indexGitEnv+plant+` && git ls-files -v && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			t.Logf("stdout %q quarantined: %v", r.Stdout, quarantined(r))
			if !strings.Contains(string(r.Stdout), "H config.env\n") {
				t.Fatalf("premise: git does not see config.env without its skip-worktree bit: %q", r.Stdout)
			}
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`cat config.env; echo ---; git show HEAD:config.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: config.env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read config.env (denied by \"**/*.env\") from the object store: a duplicate config.env entry without the skip-worktree bit, placed before the original (which the watch's map keeps), made the person's git commit -a copy it there: %q", r.Stdout)
			}
		})
	}
}

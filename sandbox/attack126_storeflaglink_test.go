package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttack126_GitLinkInOldFanoutUnderReflogs (hundred-and-twenty-sixth
// review): gitLinksIn takes any directory of a git dir whose listing holds
// a regular HEAD for a git dir of its own, its "objects" for an object
// store, and looks into that store's two-hex directories only when their
// change time is recent. A reflog directory can hold such names. The
// command makes a repository x (git init) and renames its .git to gd
// without HEAD, no git dir to any check, where it makes
// logs/refs/heads/foo/HEAD (a plain file) and
// logs/refs/heads/foo/objects/ab/x, a symlink to the person's ~/.bashrc.
// In a later command it writes gd/HEAD (ref: refs/heads/foo/objects/ab/x)
// and renames gd back to .git: a rename changes gd's time, not ab's. The
// check judges the new repository (its config is git init's) and, looking
// for links, takes logs/refs/heads/foo for a git dir, objects/ab for an
// old loose-object directory, and passes over the link: the person's
// first git commit in x appends the branch's reflog line to ~/.bashrc,
// outside every writable root.
//
// Control: the same two commands without logs/refs/heads/foo/HEAD: the
// link is found and removed, and the person's commit leaves ~/.bashrc
// alone.
func TestAttack126_GitLinkInOldFanoutUnderReflogs(t *testing.T) {
	for _, c := range []struct {
		name string
		head bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			head := `true`
			if c.head {
				head = `echo x > x/gd/logs/refs/heads/foo/HEAD`
			}
			r := sh(t, s, attack122GitEnv+`git init -q -b main x && rm x/.git/HEAD && mv x/.git x/gd && mkdir -p x/gd/logs/refs/heads/foo/objects/ab && `+
				head+` && ln -s `+rc+` x/gd/logs/refs/heads/foo/objects/ab/x && echo MADE`)
			if !strings.Contains(string(r.Stdout), "MADE") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			clockPast(t, ws+"/x/gd/logs/refs/heads/foo/objects/ab") // the next command starts after ab was made
			r = sh(t, s, `echo 'ref: refs/heads/foo/objects/ab/x' > x/gd/HEAD && mv x/gd x/.git && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(ws + "/x/.git/HEAD"); err != nil {
				t.Fatalf("premise: x/.git/HEAD is not there (quarantined?): %v", err)
			}
			// The person makes the first commit in the repository the command made.
			hostGit(t, ws+"/x", "commit", "-q", "--allow-empty", "-m", "the person's commit")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git commit appended to %s (outside every writable root) through x/.git/logs/refs/heads/foo/objects/ab/x, a symlink made in an earlier command under a reflog directory holding a HEAD: now %q", c.name, rc, b)
			}
		})
	}
}

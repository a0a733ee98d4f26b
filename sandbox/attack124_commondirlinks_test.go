package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttack124_GitLinkInCommonDir (hundred-and-twenty-fourth review):
// gitLinks looks for links only in directories the walk recognises as git
// dirs (HEAD with objects and refs, or HEAD with commondir). A linked
// work tree's git dir takes its refs, reflogs of branches, objects and
// config from its common dir, which git requires to hold objects/ and
// refs/ but not HEAD (HEAD is the git dir's own). The command makes its
// own repository sub whose .git names, by commondir, a directory c of the
// workspace holding objects/, refs/ and logs/refs/heads/main, the last a
// symlink to the person's ~/.bashrc; c has no HEAD, so no check for links
// ever looks into it. The person's next git commit in sub appends the
// branch's reflog line to ~/.bashrc, outside every writable root.
//
// Control: the same command where c also holds a HEAD (which git does not
// read there): c is a git dir to the walk, the link is removed, and the
// person's commit leaves ~/.bashrc alone.
func TestAttack124_GitLinkInCommonDir(t *testing.T) {
	for _, c := range []struct {
		name string
		head bool
	}{{"control", true}, {"attack", false}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			head := `true`
			if c.head {
				head = `cp sub/.git/HEAD c/HEAD`
			}
			r := sh(t, s, attack122GitEnv+`git init -q -b main sub && (cd sub && git commit -q --allow-empty -m x) && mkdir -p c/logs/refs/heads && `+
				`mv sub/.git/objects sub/.git/refs sub/.git/config c/ && mkdir sub/.git/refs && echo ../../c > sub/.git/commondir && `+
				`rm -f sub/.git/logs/refs/heads/main && ln -s `+rc+` c/logs/refs/heads/main && `+head+` && (cd sub && git log --oneline >/dev/null) && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(ws + "/sub/.git/HEAD"); err != nil {
				t.Fatalf("premise: sub/.git/HEAD is not there (quarantined?): %v", err)
			}
			// The person commits in the repository the command made.
			hostGit(t, ws+"/sub", "commit", "-q", "--allow-empty", "-m", "the person's commit")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git commit in sub appended to %s (outside every writable root) through c/logs/refs/heads/main, a symlink in the common dir sub/.git names: now %q", c.name, rc, b)
			}
		})
	}
}

package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestAttack124_GitLinkBudgetCountedSeen (hundred-and-twenty-fourth
// review): visit records a git dir as seen (w.seen) when gitDir does not
// quarantine it, before gitLinks runs; a git dir gitLinks then quarantines
// whole for its more than 4,096 directories is still recorded as seen. The
// command spends the bound in a directory of .git listed before logs and
// makes .git/logs/HEAD a symlink to the person's ~/.bashrc: quarantined
// whole (HEAD set aside), the link never looked at. The person puts HEAD
// back. The command's next command, a later second, removes only its
// directories (a change of the git dir itself, whose time the check
// ignores): the check finds a git dir the last walk saw, whose HEAD, logs/
// and logs/HEAD are old, and keeps the link. The person's git commit
// appends a reflog line to ~/.bashrc, outside every writable root, and no
// later check removes the link.
//
// Control: the same without the flood; the link is removed after the
// first command.
func TestAttack124_GitLinkBudgetCountedSeen(t *testing.T) {
	// (The bound was 4096 when the review wrote this; it is 16,384 since.
	// The flood below spends 4,096.)
	defer func(n int) { maxGitLinkDirs = n }(maxGitLinkDirs)
	maxGitLinkDirs = 4096
	for _, c := range []struct {
		name  string
		flood bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			flood, unflood := `true`, `true`
			if c.flood {
				flood = `for n in e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 f0 f1 f2 f3 f4 f5 f6 f7 f8 f9; do mkdir .git/$n; done; ` +
					`first=$(ls -f .git | grep -m1 -E '^([ef][0-9]|logs)$'); ` +
					`for n in e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 f0 f1 f2 f3 f4 f5 f6 f7 f8 f9; do [ $n = "$first" ] || rmdir .git/$n; done; ` +
					`[ "$first" != logs ] && (cd .git/$first && seq 1 4100 | xargs mkdir)`
				unflood = `rm -rf .git/[ef][0-9]`
			}
			r := sh(t, s, attack122GitEnv+`git checkout -q -b side && `+flood+` && rm .git/logs/HEAD && ln -s `+rc+` .git/logs/HEAD && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if c.flood {
				if !slices.Contains(quarantined(r), ws+"/.git") {
					t.Fatalf("premise: the repository was not quarantined whole: %v", quarantined(r))
				}
				// The person puts HEAD back.
				if err := os.Rename(ws+"/.git/HEAD.turnstile-untrusted", ws+"/.git/HEAD"); err != nil {
					t.Fatalf("premise: %v", err)
				}
			}
			clockPast(t, ws+"/.git/HEAD")
			r = sh(t, s, unflood+` && echo CLEANED`)
			t.Logf("second: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "CLEANED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(ws + "/.git/HEAD"); err != nil {
				t.Fatalf("premise: HEAD gone again (quarantined): %v", err)
			}
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "the person's commit")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: after a check of a command that left the repository's HEAD in place, the person's git commit appended to %s (outside every writable root) through .git/logs/HEAD, a symlink the command planted: now %q", c.name, rc, b)
			}
		})
	}
}

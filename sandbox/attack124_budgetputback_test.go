package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestAttack124_GitLinkBudgetHeadPutBack (hundred-and-twenty-fourth
// review): since the hundred-and-twenty-second review a git dir of more
// directories than the check for links looks through (4,096) is
// quarantined whole: its HEAD, config and hooks set aside, which the
// README says makes "a HEAD put back" bring back "an inert repository".
// But the links the check never reached stay. The command spends the
// bound in a directory of .git listed before logs (as
// TestAttack122_GitLinkBudget) and makes .git/logs/HEAD a symlink to the
// person's ~/.bashrc. The person's repository is named quarantined; the
// person puts its HEAD back, as the README describes, and commits: git
// appends the reflog line through the link to ~/.bashrc, outside every
// writable root. The repository brought back is not inert.
//
// Controls: the same flood without the link (quarantined, HEAD put back,
// the commit writes nothing outside); and the same link without the flood
// (removed, the commit writes nothing outside).
func TestAttack124_GitLinkBudgetHeadPutBack(t *testing.T) {
	for _, c := range []struct {
		name        string
		flood, link bool
	}{{"control_flood_nolink", true, false}, {"control_link_noflood", false, true}, {"attack", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			flood, link := `true`, `true`
			if c.flood {
				flood = `for n in e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 f0 f1 f2 f3 f4 f5 f6 f7 f8 f9; do mkdir .git/$n; done; ` +
					`first=$(ls -f .git | grep -m1 -E '^([ef][0-9]|logs)$'); ` +
					`for n in e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 f0 f1 f2 f3 f4 f5 f6 f7 f8 f9; do [ $n = "$first" ] || rmdir .git/$n; done; ` +
					`[ "$first" != logs ] && (cd .git/$first && seq 1 4100 | xargs mkdir)`
			}
			if c.link {
				link = `rm .git/logs/HEAD && ln -s ` + rc + ` .git/logs/HEAD`
			}
			r := sh(t, s, attack122GitEnv+`git checkout -q -b side && `+flood+` && `+link+` && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if c.flood {
				if !slices.Contains(quarantined(r), ws+"/.git") {
					t.Fatalf("premise: the repository was not quarantined whole: %v", quarantined(r))
				}
				// The person puts HEAD back (config and hooks stay aside).
				if err := os.Rename(ws+"/.git/HEAD.turnstile-untrusted", ws+"/.git/HEAD"); err != nil {
					t.Fatalf("premise: %v", err)
				}
			}
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "the person's commit")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: with HEAD put back in the quarantined repository, the person's git commit appended to %s (outside every writable root) through .git/logs/HEAD, a symlink the command planted: now %q", c.name, rc, b)
			}
		})
	}
}

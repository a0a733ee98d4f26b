package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttack126_GitInfoLinkInNewRepo (hundred-and-twenty-sixth review):
// gitLinks keeps, at a git dir's top, config, config.worktree, commondir,
// hooks and info whatever they are, because the protected list holds them
// read-only during commands. It holds them only in git dirs that existed
// when the command was spawned. In a repository the command makes (git
// init sub), info is the command's to replace: it makes sub/.git/info a
// symlink to a directory outside every writable root. The judgement of
// the new repository reads config and hooks, not info, so the repository
// is trusted and the link is left. git writes below info/ by name: git gc
// (its repack runs update-server-info) writes info/refs, git
// sparse-checkout writes info/sparse-checkout. The person's next git gc
// in sub creates a file, holding a line per branch (names the command
// chose), in the directory outside every root (a ~/.bashrc.d/ sources
// every file in it).
//
// Control: the same new repository with git init's own info directory:
// the person's git gc writes info/refs inside the git dir and the outside
// directory stays empty.
func TestAttack126_GitInfoLinkInNewRepo(t *testing.T) {
	for _, c := range []struct {
		name string
		link bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			out := strings.TrimSuffix(rc, "/.bashrc") + "/.bashrc.d"
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			plant := `true`
			if c.link {
				plant = `rm -rf sub/.git/info && ln -s ` + out + ` sub/.git/info`
			}
			r := sh(t, s, attack122GitEnv+`git init -q -b main sub && (cd sub && git commit -q --allow-empty -m x && git branch 'x;echo${IFS}PWNED') && `+
				plant+` && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(ws + "/sub/.git/HEAD"); err != nil {
				t.Fatalf("premise: sub/.git/HEAD is not there (quarantined?): %v", err)
			}
			// The person tidies the repository the command made.
			hostGit(t, ws+"/sub", "gc", "-q")
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				b, _ := os.ReadFile(out + "/" + ents[0].Name())
				t.Errorf("%s: the person's git gc in sub wrote %s/%s (outside every writable root) through sub/.git/info, a symlink the command made in its new repository's git dir: %q", c.name, out, ents[0].Name(), b)
			}
		})
	}
}

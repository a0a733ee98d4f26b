package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttack126_CommonDirDotDotAfterLink (hundred-and-twenty-sixth
// review): the judgement of a repository (plantWalk.commonDir) and the
// check for links in its common dir (commonInRoots) both take the path a
// git dir's commondir file names joined to the git dir and cleaned
// lexically (domain.CleanPath, filepath.Join), then refuse one "that leads
// through a symlink" by comparing that cleaned path with its canonical
// form. git resolves the same text physically (strbuf_realpath, component
// by component): a ".." after a symlink goes up from where the link led.
// The command makes a repository sub whose .git/commondir reads
// "../lnk/../c", with sub/lnk a symlink (in the work tree, which keeps
// links) to deep/a/b. Lexically that is sub/c, a decoy common dir with a
// plain config, which the check judges and trusts; git's common dir is
// deep/a/c, which holds no HEAD, so no walk takes it for a git dir, and
// whose config sets core.fsmonitor. The person's next git status in sub
// runs the command's program on the host.
//
// Control: the same repository whose commondir names deep/a/c directly
// ("../../deep/a/c"): the check judges that config, quarantines the
// repository, and the person's git status runs nothing.
func TestAttack126_CommonDirDotDotAfterLink(t *testing.T) {
	for _, c := range []struct{ name, commondir string }{
		{"control", "../../deep/a/c"},
		{"attack", "../lnk/../c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			marker := strings.TrimSuffix(rc, "/.bashrc") + "/PWNED"
			r := sh(t, s, attack122GitEnv+`git init -q -b main proto && mkdir -p sub/.git deep/a/b && `+
				`cp -r proto/.git deep/a/c && rm -f deep/a/c/HEAD && cp -r proto/.git sub/c && rm -f sub/c/HEAD && rm -rf proto && `+
				`printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' >> deep/a/c/config && `+
				`echo 'ref: refs/heads/main' > sub/.git/HEAD && echo '`+c.commondir+`' > sub/.git/commondir && `+
				`ln -s ../deep/a/b sub/lnk && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("premise: %s exists before the person's git ran", marker)
			}
			// The person looks at the repository the command made.
			out, err := hostGitRun(t, ws+"/sub", "status")
			t.Logf("the person's git status: %v %q", err, out)
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("%s: the person's git status in sub ran core.fsmonitor from deep/a/c/config (made by the command), the common dir git reaches through sub/lnk by commondir %q, which the check took for sub/c", c.name, c.commondir)
			}
		})
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttack126_GitFileDotDotAfterLink (hundred-and-twenty-sixth review):
// the check of a ".git" file (plantWalk.gitfile) cleans its gitdir path
// lexically and refuses it only when the cleaned path differs from its
// canonical form or lies outside the writable roots. git resolves the same
// text physically: a ".." after a symlink goes up from where the link led
// (discovery knows this: the sixty-sixth review; physicallyAt does for
// core.worktree: the ninety-second). The command makes
// s1/s2/s3/s4/s5/sub/.git a file "gitdir: lnk/../../../../../../other/.git",
// sub/lnk a symlink (work-tree links stay) to d1/d2/d3/d4/d5, and a decoy
// repository s1/other. Lexically the git dir is the decoy, inside the
// root, whose config names nothing relative to the work tree: the file
// stays. To git it is the person's own repository other/.git beside the
// workspace, outside every writable root, whose config has core.hooksPath
// = .husky/_ (husky's, relative to the work tree). The person's next commit
// in sub runs sub/.husky/_/pre-commit, the command's program, on the host.
//
// Control: the same .git file naming other/.git directly
// ("../../../../../../../other/.git"): the check sets it aside (a git dir
// outside the writable roots), and the person's commit runs nothing.
func TestAttack126_GitFileDotDotAfterLink(t *testing.T) {
	for _, c := range []struct{ name, gitdir string }{
		{"control", "../../../../../../../other/.git"},
		{"attack", "lnk/../../../../../../other/.git"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			base := strings.TrimSuffix(rc, "/home/.bashrc")
			marker := base + "/PWNED"
			// The person's other project, beside the workspace, uses husky.
			if err := os.MkdirAll(base+"/other", 0o755); err != nil {
				t.Fatal(err)
			}
			hostGit(t, base+"/other", "init", "-q", "-b", "main")
			hostGit(t, base+"/other", "config", "core.hooksPath", ".husky/_")
			sub := ws + "/s1/s2/s3/s4/s5/sub"
			r := sh(t, s, attack122GitEnv+`git init -q -b main s1/other && mkdir -p s1/s2/s3/s4/s5/sub/.husky/_ d1/d2/d3/d4/d5 && `+
				`ln -s `+ws+`/d1/d2/d3/d4/d5 `+sub+`/lnk && echo 'gitdir: `+c.gitdir+`' > `+sub+`/.git && `+
				`printf '#!/bin/sh\ntouch `+marker+`\n' > `+sub+`/.husky/_/pre-commit && chmod +x `+sub+`/.husky/_/pre-commit && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("premise: %s exists before the person's git ran", marker)
			}
			// The person commits in the directory the command made.
			out, err := hostGitRun(t, sub, "commit", "--allow-empty", "-m", "the person's commit")
			t.Logf("the person's git commit: %v %q", err, out)
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("%s: the person's git commit in sub ran sub/.husky/_/pre-commit (the command's): its .git file %q leads git, through sub/lnk, to %s/other/.git (outside the roots, core.hooksPath = .husky/_), which the check took for s1/other/.git", c.name, c.gitdir, base)
			}
		})
	}
}

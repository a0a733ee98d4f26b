package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttack127_GitFileTrailingSpace (hundred-and-twenty-seventh review):
// the check of a ".git" file (plantWalk.gitfile) reads its gitdir with
// readPointer, which trims white space on both sides of the path. git
// (read_gitfile_gently) strips only trailing "\n" and "\r": a trailing
// blank is part of the path. The command makes sub/.git a file
// "gitdir: lnk " (a blank at the end), sub/lnk an empty directory (the
// decoy: it exists, is its own canonical path, inside the root, and
// names nothing relative to the work tree: the file stays), and
// "sub/lnk " (with the blank) a symlink to the person's own repository
// other/.git beside the workspace, outside every writable root, whose
// config has core.hooksPath = .husky/_ (husky's, relative to the work
// tree). The person's next commit in sub runs sub/.husky/_/pre-commit,
// the command's program, on the host.
//
// Control: the same .git file without the trailing blank ("gitdir: lnk "
// minus the blank, naming the link itself): the check sets it aside
// (reached through a symlink), and the person's commit runs nothing.
func TestAttack127_GitFileTrailingSpace(t *testing.T) {
	for _, c := range []struct{ name, gitdir, link string }{
		{"control", "lnk", "lnk"},
		{"attack", "lnk ", "lnk "},
		// The same through a second line: readPointer reads the first
		// line only, git the whole file (stripping only trailing "\n"
		// and "\r"), so "gitdir: lnk\nx\n" is to git the path "lnk\nx".
		{"attack-second-line", "lnk\nx", "lnk\nx"},
		// And a leading blank: git takes the path from the eighth byte
		// on ("gitdir: " and the rest), readPointer trims it.
		{"attack-leading-blank", " lnk", " lnk"},
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
			sub := ws + "/sub"
			decoy := `true`
			if c.link != "lnk" {
				decoy = `mkdir ` + sub + `/lnk`
			}
			r := sh(t, s, `mkdir -p sub/.husky/_ && `+decoy+` && ln -s `+base+`/other/.git "$(printf '`+sub+`/`+c.link+`')" && `+
				`printf 'gitdir: %b\n' '`+c.gitdir+`' > `+sub+`/.git && `+
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
				t.Errorf("%s: the person's git commit in sub ran sub/.husky/_/pre-commit (the command's): its .git file %q leads git, through the symlink %q, to %s/other/.git (outside the roots, core.hooksPath = .husky/_), which the check took for the empty directory sub/lnk", c.name, "gitdir: "+c.gitdir, c.link, base)
			}
		})
	}
}

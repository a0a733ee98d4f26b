package sandbox

import "testing"

// TestAttack4RerootSymlink (fourth attack review): the gitfile re-root
// rule looks only at a regular ".git" file (the walk marks gitfile only
// for DT_REG). git's discovery stats ".git" following symlinks: a symlink
// pkg/.git -> ../.git (a directory) makes pkg a second work tree of the
// held workspace repository just the same, and so does a symlink to a
// regular file holding "gitdir: ...". The person's husky hooksPath
// (.husky/_) is then taken from pkg/.husky/_, the command's.
func TestAttack4RerootSymlink(t *testing.T) {
	for _, c := range []struct{ name, dir, script string }{
		{"symlink-to-git-dir", "pkg", "cd pkg && ln -s ../.git .git && "},
		{"symlink-to-gitfile", "pkg", "cd pkg && echo 'gitdir: ../.git' > gf && ln -s gf .git && "},
	} {
		t.Run(c.name, func(t *testing.T) { attack3Reroot(t, c.dir, c.script) })
	}
}

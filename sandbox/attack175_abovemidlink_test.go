package sandbox

import "testing"

// TestAttack175_AboveRootItemLinkMidPath (hundred-and-seventy-fifth
// review): addAboveRootLinks (review 172) keeps read-only what a
// protected item above a writable root leads to, but only where the
// item's own path ends in the link (os.Lstat of DIR/ITEM is a symlink).
// An item of two elements whose first is the link (repo/mise ->
// sub/cfg, so mise reads repo/mise/config.toml from repo/sub/cfg/config.toml;
// repo/.cargo -> sub/cargo, cargo's config.toml, whose
// build.rustc-wrapper and target runners cargo runs; repo/.mvn ->
// sub/mvn, maven.config) is Lstat'ed through the link, a regular file,
// and skipped: a turn rooted at repo/sub (under allowed_roots repo)
// rewrites the file the project's tools read at repo.
//
// Control: the same links under a turn rooted at repo keep their
// targets, and another file of repo/sub stays writable.
func TestAttack175_AboveRootItemLinkMidPath(t *testing.T) {
	for _, c := range []struct{ item, target, file string }{
		{"mise", "sub/cfg", "config.toml"},
		{".cargo", "sub/cargo", "config.toml"},
		{".mvn", "sub/mvn", "maven.config"},
	} {
		files := map[string]string{"repo/" + c.target + "/" + c.file: "# the person's\n", "repo/sub/other.go": "package x\n"}
		kept := "repo/" + c.target + "/" + c.file
		for _, root := range []string{"repo", "repo/sub"} {
			name := "rooted at " + root + ", " + c.item + " -> " + c.target
			if root == "repo" {
				name = "control: " + name
			}
			t.Run(name, func(t *testing.T) {
				checkLauncherCase(t, launcherCase{name: name, root: root, files: files,
					links: map[string]string{"repo/" + c.item: c.target}, kept: []string{kept}, free: "repo/sub/other.go"})
			})
		}
	}
}

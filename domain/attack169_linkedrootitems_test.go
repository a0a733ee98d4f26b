package domain

import (
	"slices"
	"testing"
)

// TestAttack169_LinkedRootKeepsItsItems (review 169's follow-up): the
// protected entries of a root given through a link are written where it
// led (BindRootLinks); BindRoots, when another root of the turn had items
// above it (a project root at a repository's .github), normalised the
// entries and dropped those, outside every root's written path: the
// linked workspace lost its .vscode, .envrc, .vscode… to the kernel.
// Control: the same turn without the second root keeps them.
func TestAttack169_LinkedRootKeepsItsItems(t *testing.T) {
	cat := &ProfileCatalog{Home: "/home/u", Constraints: &Constraints{AllowedRoots: []string{"/work"}}}
	has := func(projects []string) bool {
		t.Helper()
		in := goldenInputs(ModeAutoAcceptEdits)
		in.Profile = TurnPermissionProfileSnapshot{}
		in.WorkspaceRoot, in.Cwd, in.ProjectRoots, in.AppReadRoots = "/work/wl", "/work/wl", projects, nil
		in.RootLinks = map[string]string{"/work/wl": "/work/real"}
		for _, p := range projects {
			in.RootLinks[p] = p
		}
		s, err := SelectSnapshot(&ProfileRequest{Mode: ModeAutoAcceptEdits}, cat, SourceComposer, in)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(s.Sandbox.Filesystem.Entries, func(e FilesystemEntry) bool {
			return e.Kind == PathProtected && e.ResolvedPath == "/work/real/.vscode" && e.Access == AccessRead
		})
	}
	if !has(nil) {
		t.Fatalf("control: a turn rooted at /work/wl -> /work/real has no protected /work/real/.vscode")
	}
	if !has([]string{"/work/a/.github"}) {
		t.Errorf("a turn rooted at /work/wl -> /work/real with a project root at /work/a/.github lost its protected /work/real/.vscode")
	}
}

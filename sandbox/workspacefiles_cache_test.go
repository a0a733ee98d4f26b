package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNamedFilesListedOnceWhileUnchanged: the top of a writable root is
// listed again only when it changed (twenty-sixth review: every spawn
// listed and matched it whole); a workspace file made after a listing is
// found at once (control: the cache never hides a new one), and one
// removed is gone.
func TestNamedFilesListedOnceWhileUnchanged(t *testing.T) {
	old := namedSettle
	namedSettle = 0
	defer func() { namedSettle = old }()
	root := t.TempDir()
	for i := range 2000 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("name-%04d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := workspaceFiles(root); len(got) != 0 {
		t.Fatalf("no workspace file yet: %q", got)
	}
	before := namedListed.Load()
	for range 5 {
		workspaceFiles(root)
	}
	if n := namedListed.Load() - before; n != 0 {
		t.Errorf("an unchanged root was listed %d times more", n)
	}
	ws := filepath.Join(root, "Evil.Code-Workspace")
	if err := os.WriteFile(ws, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := workspaceFiles(root); !slices.Equal(got, []string{"Evil.Code-Workspace"}) {
		t.Fatalf("after a workspace file was made: %q", got)
	}
	if err := os.Remove(ws); err != nil {
		t.Fatal(err)
	}
	if got := workspaceFiles(root); len(got) != 0 {
		t.Fatalf("after it was removed: %q", got)
	}
	for _, c := range []struct {
		name string
		want bool
	}{{"a.code-workspace", true}, {"A.CODE-WORKSPACE", true}, {"mise.dev.toml", true}, {"x.tomlx", false}, {"code-workspace", false}} {
		if mayBeNamed([]byte(c.name)) != c.want {
			t.Errorf("mayBeNamed(%q) = %v", c.name, !c.want)
		}
	}
}

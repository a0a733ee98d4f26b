package domain

import (
	"strings"
	"testing"
)

// TestAttack11ProfileAddedRootUnbound: a profile the operator allows adds a
// workspace root (its workspace_roots table) outside allowed_roots. The
// roots the starter names were checked and bound, but the profile's added
// root was neither: the turn was granted a writable root outside the
// operator's allowed roots. Every root of the compiled snapshot is now
// checked: the selection is refused, naming the root. Controls: the same
// root named as the turn's project root is refused too, and a profile that
// adds a root inside allowed_roots is selected, that root bound.
func TestAttack11ProfileAddedRootUnbound(t *testing.T) {
	cat := &ProfileCatalog{Home: "/home/u",
		Profiles: ProfileSet{
			"dev":    {Name: "dev", Extends: BuiltinWorkspace, WorkspaceRoots: map[string]bool{"/opt/other": true}},
			"inside": {Name: "inside", Extends: BuiltinWorkspace, WorkspaceRoots: map[string]bool{"/work/shared": true}}},
		Constraints: &Constraints{AllowedProfiles: []string{"dev", "inside"}, AllowedRoots: []string{"/work"}}}
	if _, err := SelectSnapshot(&ProfileRequest{Profile: "inside"}, cat, SourceComposer,
		SnapshotInputs{WorkspaceRoot: "/work/a", Cwd: "/work/a", ProjectRoots: []string{"/opt/other"}}); err == nil {
		t.Fatal("control: a project root outside allowed_roots was selected")
	}
	_, err := SelectSnapshot(&ProfileRequest{Profile: "dev"}, cat, SourceComposer, SnapshotInputs{WorkspaceRoot: "/work/a", Cwd: "/work/a"})
	if err == nil || !strings.Contains(err.Error(), "grants the root /opt/other, outside the roots") {
		t.Fatalf("a profile adding a root outside allowed_roots: %v", err)
	}
	s, err := SelectSnapshot(&ProfileRequest{Profile: "inside"}, cat, SourceComposer, SnapshotInputs{WorkspaceRoot: "/work/a", Cwd: "/work/a"})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	bound := false
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.ResolvedPath == "/work/shared" && e.Access == AccessWrite {
			bound = e.Within == "/work"
		}
	}
	if !bound {
		t.Errorf("control: the profile's added root inside allowed_roots is not granted and bound: %+v", s.Sandbox.Filesystem.Entries[:2])
	}
}

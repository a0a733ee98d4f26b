package domain

import (
	"slices"
	"testing"
)

// TestAlsoProtectedAt: a call's own directory inside a writable root gets
// the protected list's entries (.mcp.json, .vscode); the turn's own cwd, a
// directory outside the writable roots, a relative cwd and an unrestricted
// filesystem get none (controls).
func TestAlsoProtectedAt(t *testing.T) {
	s, err := ResolveSnapshot(SnapshotInputs{
		Profile: ResolveProfile(&ProfileRequest{Mode: ModeAutoAcceptEdits}, SourceComposer),
		Cwd:     "/work/repo", WorkspaceRoot: "/work/repo", ExecutionBackend: BackendNative,
		Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	protectedAt := func(snap *TurnExecutionSecuritySnapshot, p string) bool {
		return slices.ContainsFunc(snap.Sandbox.Filesystem.Entries, func(e FilesystemEntry) bool { return e.Kind == PathProtected && e.Path == p })
	}
	if protectedAt(&s, "/work/repo/app/.mcp.json") {
		t.Fatal("premise: app/.mcp.json is protected before the call's cwd is known")
	}
	got, ok, _ := s.AlsoProtectedAt("/work/repo/app/")
	if !ok || !protectedAt(&got, "/work/repo/app/.mcp.json") || !protectedAt(&got, "/work/repo/app/.vscode") {
		t.Fatalf("a call in /work/repo/app: added %v", ok)
	}
	if protectedAt(&s, "/work/repo/app/.mcp.json") {
		t.Fatal("the turn's own snapshot was changed")
	}
	// A call in app/src (after a cd): app's items are held too.
	got, ok, _ = s.AlsoProtectedAt("/work/repo/app/src")
	if !ok || !protectedAt(&got, "/work/repo/app/src/.envrc") || !protectedAt(&got, "/work/repo/app/.mcp.json") {
		t.Fatalf("a call in /work/repo/app/src: added %v", ok)
	}
	for _, cwd := range []string{"", "/work/repo", "app", "/etc"} {
		if _, ok, _ := s.AlsoProtectedAt(cwd); ok {
			t.Errorf("cwd %q: entries added", cwd)
		}
	}
	full, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: ModeFullAccess}, SourceComposer),
		Cwd: "/work/repo", WorkspaceRoot: "/work/repo", ExecutionBackend: BackendNative})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := full.AlsoProtectedAt("/work/repo/app"); ok && full.Sandbox.Filesystem.Unrestricted {
		t.Error("an unrestricted filesystem: entries added")
	}
}

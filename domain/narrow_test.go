package domain

import "testing"

// TestNarrowToParentOnlyNarrows: for every parent mode a child was started
// under, every mode the child asked for and every mode the parent changes
// to, the child bounded again by the new parent is never wider than the
// child was nor than the new parent, and it is as narrow as a child started
// under the new parent would be in its mode; a parent that did not narrow
// leaves the child as it was (nothing narrower).
func TestNarrowToParentOnlyNarrows(t *testing.T) {
	resolve := func(m Mode) TurnExecutionSecuritySnapshot {
		s, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: m}, SourceComposer),
			Cwd: "/work/repo", WorkspaceRoot: "/work/repo", Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, old := range Modes {
		for _, asked := range Modes {
			for _, now := range Modes {
				oldParent, newParent := resolve(old), resolve(now)
				child, err := ResolveChildSnapshot(ChildInputs{Requested: &ProfileRequest{Mode: asked}, Parent: &oldParent, ParentTurnID: "p"})
				if err != nil {
					t.Fatal(err)
				}
				got := NarrowToParent(&child, &newParent, "p")
				if Widens(&child, &got) {
					t.Errorf("%s→%s, child %s: the child got wider", old, now, asked)
				}
				if Widens(&newParent, &got) {
					t.Errorf("%s→%s, child %s: the child is wider than its parent now (%s)", old, now, asked, got.PermissionProfile.Mode)
				}
				if want := StricterMode(child.PermissionProfile.Mode, now); got.PermissionProfile.Mode != want {
					t.Errorf("%s→%s, child %s: mode %s, want %s", old, now, asked, got.PermissionProfile.Mode, want)
				}
				if !Widens(&newParent, &oldParent) && Widens(&got, &child) {
					t.Errorf("%s→%s, child %s: a parent that did not narrow narrowed the child", old, now, asked)
				}
			}
		}
	}
}

// TestNarrowToParentKeepsTheChildsOwnLimits: what the child narrowed by
// itself (a denied tool, fewer allowed paths) stays after its parent is
// narrowed.
func TestNarrowToParentKeepsTheChildsOwnLimits(t *testing.T) {
	k := KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}
	parent, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: ModeAutoAcceptEdits}, SourceComposer),
		Cwd: "/work/repo", WorkspaceRoot: "/work/repo", Kernel: k})
	if err != nil {
		t.Fatal(err)
	}
	child, err := ResolveChildSnapshot(ChildInputs{Requested: &ProfileRequest{Mode: ModeAutoAcceptEdits, DeniedTools: []string{"web_fetch"},
		AllowedPaths: []string{"/work/repo/src"}, AllowedPathsRestricted: true}, Parent: &parent, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	now, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: ModeSupervised}, SourceComposer),
		Cwd: "/work/repo", WorkspaceRoot: "/work/repo", Kernel: k})
	if err != nil {
		t.Fatal(err)
	}
	got := NarrowToParent(&child, &now, "p")
	pol := got.PermissionProfile.EffectivePolicy
	if got.PermissionProfile.Mode != ModeSupervised || !containsString(pol.DeniedTools, "web_fetch") || !pol.AllowedPathsRestricted ||
		len(pol.AllowedPaths) != 1 || pol.AllowedPaths[0] != "/work/repo/src" {
		t.Fatalf("narrowed child: mode %s, denied %v, allowed paths %v (restricted %v)", got.PermissionProfile.Mode, pol.DeniedTools, pol.AllowedPaths, pol.AllowedPathsRestricted)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package domain

import "testing"

// TestAttack32ChildRootInsideOverlay: a profile grants a workspace-local
// cache the host's tools trust (node_modules) as "overlay": each command
// writes a copy of its own, nothing reaches the directory. A child turn
// that names that directory as its workspace root gets it writable:
// IntersectFilesystem pairs the parent's writable workspace with the
// child's root (write) and the parent's overlay with it (read, overlay),
// and normalizeEntries keeps the stronger grant of the two at one path.
func TestAttack32ChildRootInsideOverlay(t *testing.T) {
	set := ProfileSet{"npm": {Name: "npm", Extends: BuiltinWorkspace,
		Filesystem: map[string]Access{":workspace_roots/node_modules": AccessOverlay},
		Approvals:  ProfileApprovals{Policy: ModeFullAccess}}}
	cat := &ProfileCatalog{Profiles: set, Home: "/home/u"}
	k := KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true, EgressProxy: true}
	parent, err := SelectSnapshot(&ProfileRequest{Profile: "npm"}, cat, SourceComposer, SnapshotInputs{Cwd: "/ws", WorkspaceRoot: "/ws", Kernel: k})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s *TurnExecutionSecuritySnapshot, p string) (Access, bool) {
		best, depth, ov := AccessDeny, -1, false
		for _, e := range s.Sandbox.Filesystem.Entries {
			if PathWithin(p, e.ResolvedPath) && len(e.ResolvedPath) >= depth {
				if len(e.ResolvedPath) > depth || e.Access.rank() > best.rank() {
					best, ov = e.Access, e.Overlay
				}
				depth = len(e.ResolvedPath)
			}
		}
		return best, ov
	}
	if a, ov := at(&parent, "/ws/node_modules/x.js"); a != AccessRead || !ov {
		t.Fatalf("control: the parent's node_modules: %s overlay=%v", a, ov)
	}
	if !parent.CanSpawn() {
		t.Fatalf("control: the parent cannot spawn: %+v", parent.Enforcement)
	}
	plain, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p", Inputs: SnapshotInputs{Kernel: k}})
	if err != nil {
		t.Fatal(err)
	}
	if a, ov := at(&plain, "/ws/node_modules/x.js"); a != AccessRead || !ov {
		t.Fatalf("control: a child over the same root: %s overlay=%v", a, ov)
	}
	child, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p",
		Inputs: SnapshotInputs{Cwd: "/ws/node_modules", WorkspaceRoot: "/ws/node_modules", Kernel: k}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range child.Sandbox.Filesystem.Entries {
		if PathWithin(e.ResolvedPath, "/ws") && e.Kind != PathProtected {
			t.Logf("child entry %s %s %s overlay=%v", e.Kind, e.ResolvedPath, e.Access, e.Overlay)
		}
	}
	if a, ov := at(&child, "/ws/node_modules/x.js"); a == AccessWrite && !ov {
		t.Errorf("a child rooted at the parent's overlay directory gets it writable (no overlay): the host's node_modules is the child's commands' to write")
	}
	// Fixed: the child keeps the overlay there, and its commands run.
	if a, ov := at(&child, "/ws/node_modules/x.js"); a != AccessRead || !ov || !child.CanSpawn() {
		t.Errorf("the child's node_modules: %s overlay=%v, can spawn %v (%+v)", a, ov, child.CanSpawn(), child.Enforcement)
	}
	// And a child rooted below it (node_modules/left-pad) too.
	deeper, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p",
		Inputs: SnapshotInputs{Cwd: "/ws/node_modules/left-pad", WorkspaceRoot: "/ws/node_modules/left-pad", Kernel: k}})
	if err != nil {
		t.Fatal(err)
	}
	if a, ov := at(&deeper, "/ws/node_modules/left-pad/index.js"); a != AccessRead || !ov || !deeper.CanSpawn() {
		t.Errorf("a child rooted below the overlay: %s overlay=%v, can spawn %v (%+v)", a, ov, deeper.CanSpawn(), deeper.Enforcement)
	}
}

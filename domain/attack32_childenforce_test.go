package domain

import (
	"testing"
)

// TestAttack32ChildDropsProfileDegradations: a profile whose network the
// kernel cannot hold to it (limited to GET, HEAD and OPTIONS, loopback and
// private addresses refused at decision time only) makes the turn's
// snapshot unavailable: its commands are refused (README, "Permission
// profiles": "such a profile's commands are refused while its decisions
// apply"). A child turn of it, which any runtime credential may start and
// which "is bounded by its parent", recomputes its enforcement with
// ComputeEnforcement alone: the profile's degradations are gone, the
// child's network stays "enabled" with the parent's method list, and the
// sandbox restricts no network for an enabled one (prepareSandbox:
// needNet is Mode != enabled). The child spawns commands with the host's
// network: POST, loopback, metadata.
func TestAttack32ChildDropsProfileDegradations(t *testing.T) {
	on := true
	set := ProfileSet{"ci": {Name: "ci", Extends: BuiltinWorkspace,
		Network:   ProfileNetwork{Enabled: &on, Mode: "limited"},
		Approvals: ProfileApprovals{Policy: ModeFullAccess}}}
	cat := &ProfileCatalog{Profiles: set, Home: "/home/u"}
	k := KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true, EgressProxy: true}
	in := SnapshotInputs{Cwd: "/ws", WorkspaceRoot: "/ws", Kernel: k}
	parent, err := SelectSnapshot(&ProfileRequest{Profile: "ci"}, cat, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	// Control: the parent's commands are refused.
	if parent.CanSpawn() {
		t.Fatalf("control: the parent (limited network without the proxy carrying it) can spawn: %+v", parent.Enforcement)
	}
	// Control: a full_access mode turn spawns with an unrestricted network (what the child must not become).
	child, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p", Inputs: SnapshotInputs{Kernel: k}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("child: mode %s network %+v enforcement %+v", child.PermissionProfile.Mode, child.Network, child.Enforcement)
	if child.CanSpawn() && child.Network.Mode == NetworkEnabled {
		t.Errorf("the child of a profile whose commands are refused spawns commands with an unrestricted network (mode %s, methods %v, localhost %v): its parent's degradations were dropped", child.Network.Mode, child.Network.AllowedMethods, child.Network.AllowLocalhost)
	}
}

// TestAttack32ChildDropsProfileDegradationsVariants: the same recomputation
// in the two other places a child's snapshot is made.
//
//   - A unix-socket allow-list (one podman socket): the kernel allows all
//     unix sockets or none, so the parent's commands are refused; its
//     child gets allow_unix_sockets (full_access's true AND the parent's
//     true) with an active enforcement: every socket (docker.sock…).
//   - NarrowToParent: an operator narrows a full_access parent to the
//     limited profile (its commands now refused); the child it had
//     delegated to is narrowed to it, but its enforcement is recomputed
//     and stays active with an enabled network: its commands go on
//     reaching any host with any method.
func TestAttack32ChildDropsProfileDegradationsVariants(t *testing.T) {
	on := true
	set := ProfileSet{
		"ci": {Name: "ci", Extends: BuiltinWorkspace,
			Network:   ProfileNetwork{Enabled: &on, Mode: "limited"},
			Approvals: ProfileApprovals{Policy: ModeFullAccess}},
		"podman": {Name: "podman", Extends: BuiltinWorkspace,
			Network:   ProfileNetwork{UnixSockets: map[string]bool{"/run/user/1000/podman/podman.sock": true}},
			Approvals: ProfileApprovals{Policy: ModeFullAccess}},
	}
	cat := &ProfileCatalog{Profiles: set, Home: "/home/u"}
	k := KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true, EgressProxy: true}
	in := SnapshotInputs{Cwd: "/ws", WorkspaceRoot: "/ws", Kernel: k}
	sel := func(req *ProfileRequest) TurnExecutionSecuritySnapshot {
		s, err := SelectSnapshot(req, cat, SourceComposer, in)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	child := func(p *TurnExecutionSecuritySnapshot) TurnExecutionSecuritySnapshot {
		c, err := ResolveChildSnapshot(ChildInputs{Parent: p, ParentTurnID: "p", Inputs: SnapshotInputs{Kernel: k}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	t.Run("unix socket allow-list", func(t *testing.T) {
		parent := sel(&ProfileRequest{Profile: "podman"})
		if parent.CanSpawn() {
			t.Fatalf("control: the parent (a unix-socket allow-list) can spawn: %+v", parent.Enforcement)
		}
		c := child(&parent)
		if c.CanSpawn() && c.Network.AllowUnixSockets {
			t.Errorf("the child of a turn whose commands are refused (a unix-socket allow-list the kernel cannot hold) spawns with every unix socket open: enforcement %s", c.Enforcement.Status)
		}
	})

	t.Run("parent narrowed", func(t *testing.T) {
		wide := sel(&ProfileRequest{Mode: ModeFullAccess})
		c := child(&wide)
		// Control: before the narrowing the child runs with a full network.
		if !c.CanSpawn() || c.Network.Mode != NetworkEnabled {
			t.Fatalf("control: the full_access child: %+v %+v", c.Enforcement, c.Network)
		}
		narrowed := sel(&ProfileRequest{Profile: "ci"})
		if narrowed.CanSpawn() {
			t.Fatalf("control: the narrowed parent can spawn: %+v", narrowed.Enforcement)
		}
		n := NarrowToParent(&c, &narrowed, "p")
		if n.CanSpawn() && n.Network.Mode == NetworkEnabled {
			t.Errorf("a child narrowed to a parent whose commands are now refused still spawns with an unrestricted network (methods %v, enforcement %s)", n.Network.AllowedMethods, n.Enforcement.Status)
		}
	})
}

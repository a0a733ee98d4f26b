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

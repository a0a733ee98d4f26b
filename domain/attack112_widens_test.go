package domain

import "testing"

// attack112Supervised is a supervised snapshot (network disabled, no
// host unix sockets) over /work/repo.
func attack112Supervised(t *testing.T) TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: ModeSupervised}, SourceComposer),
		Cwd: "/work/repo", WorkspaceRoot: "/work/repo", Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAttack112_WidensIgnoresUnixSocketsOfDisabledNetwork: the unit form of
// tests/attack112_sockwiden_test.go. networkNarrows returns "no narrowing"
// once the network it is given as the narrower one is disabled ("nothing
// to take away"), before it compares AllowUnixSockets, which a disabled
// network still carries (a permission profile's unix_sockets: the command
// connects to host sockets with the network off). So Widens says a change
// that opens every host socket widens nothing (a runtime may make it), and
// SandboxNarrows says the way back narrows nothing (running commands and
// children keep the sockets).
//
// Control: the same snapshot with its network enabled is a widening.
func TestAttack112_WidensIgnoresUnixSocketsOfDisabledNetwork(t *testing.T) {
	old := attack112Supervised(t)
	if old.Network.Mode != NetworkDisabled || old.Network.AllowUnixSockets {
		t.Fatalf("setup: supervised network %+v", old.Network)
	}
	// Control: opening the network is a widening.
	net := attack112Supervised(t)
	net.Network.Mode = NetworkEnabled
	if !Widens(&old, &net) {
		t.Fatalf("control: enabling the network is not a widening")
	}
	sockets := attack112Supervised(t)
	sockets.Network.AllowUnixSockets = true
	if !Widens(&old, &sockets) {
		t.Errorf("Widens: a change that lets commands connect to every host unix socket (network disabled, allow_unix_sockets false → true) is not a widening")
	}
	if !SandboxNarrows(&sockets, &old) {
		t.Errorf("SandboxNarrows: taking every host unix socket away from a disabled network's commands (allow_unix_sockets true → false) is not a narrowing")
	}
}

// TestAttack112_WidensIgnoresGlobScanDepth: the unit form of
// tests/attack112_globdepth_test.go. A snapshot whose glob deny rules are
// masked only one level below each root (glob_scan_max_depth 1) instead of
// eight holds less on commands, but Widens compares the rules, not the
// depth the sandbox scans for their matches.
//
// Control: the same rules with a glob deny dropped is a widening.
func TestAttack112_WidensIgnoresGlobScanDepth(t *testing.T) {
	withGlob := func(depth int) TurnExecutionSecuritySnapshot {
		s := attack112Supervised(t)
		s.Sandbox.Filesystem.Rules = []PathRule{
			{Key: ":workspace_roots", Pattern: "/work/repo", Access: AccessWrite, Provenance: RuleFromProfile, Origin: "dev"},
			{Key: "**/secret.txt", Pattern: "/**/secret.txt", Glob: true, Access: AccessDeny, Provenance: RuleFromProfile, Origin: "dev"},
		}
		s.Sandbox.Filesystem.GlobScanMaxDepth = depth
		return s
	}
	deep, shallow := withGlob(8), withGlob(1)
	// Control: dropping the glob deny is a widening.
	dropped := withGlob(8)
	dropped.Sandbox.Filesystem.Rules = dropped.Sandbox.Filesystem.Rules[:1]
	if !Widens(&deep, &dropped) {
		t.Fatalf("control: dropping a glob deny is not a widening")
	}
	if !Widens(&deep, &shallow) {
		t.Errorf("Widens: scanning glob deny matches 1 level deep instead of 8 (fewer files masked from commands) is not a widening")
	}
}

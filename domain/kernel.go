package domain

import "strconv"

// FullLandlockABI is the lowest Landlock ABI whose strict ruleset leaves
// nothing out that a restricted snapshot relies on: truncate (ABI 3), ioctl
// on devices (ABI 5) and scoping of signals and abstract unix sockets (ABI
// 6). TCP rules (ABI 4) are not needed: seccomp refuses IP sockets.
const FullLandlockABI = 6

// landlockDegradations names what a restricted snapshot loses on a native
// backend whose Landlock ABI is older than FullLandlockABI. The helper's
// namespaces make up for some of it: the read-only root view refuses
// truncate outside the writable roots, the PID namespace hides host
// processes from signals, and a network namespace of its own keeps host
// abstract sockets out when scoping is missing (while the network is off).
// What they do not cover is named here; ioctl on devices always is. Nothing is
// named when Landlock is missing altogether: that is the filesystem
// degradation.
func landlockDegradations(s *TurnExecutionSecuritySnapshot) []Degradation {
	k := s.Backend.Kernel
	if k == nil || k.LandlockABI < 1 || k.LandlockABI >= FullLandlockABI {
		return nil
	}
	abi := "Landlock ABI " + strconv.Itoa(k.LandlockABI)
	var ds []Degradation
	if !s.Sandbox.Filesystem.Unrestricted {
		if k.LandlockABI < 3 && !k.UserNamespaces {
			ds = append(ds, Degradation{Dimension: "filesystem", Reason: abi + " < 3 and no mount namespace: truncate(2) is not controlled: files under read-only roots that the user may write can be truncated"})
		}
		if k.LandlockABI < 5 {
			ds = append(ds, Degradation{Dimension: "filesystem", Reason: abi + " < 5: ioctl on device files the user may open (e.g. a terminal's TIOCSTI) is not controlled"})
		}
	}
	switch {
	case !k.UserNamespaces:
		ds = append(ds, Degradation{Dimension: "process", Reason: abi + " < 6 and no PID namespace: no scoping: the command can signal processes outside the sandbox and connect to their abstract unix sockets"})
	case s.Network.Mode == NetworkEnabled && !s.Network.AllowUnixSockets:
		// The helper's own network namespace, which keeps host abstract
		// sockets out below ABI 6, is only made while the network is off.
		ds = append(ds, Degradation{Dimension: "network", Reason: abi + " < 6 with the network enabled: no scoping: the command can connect to abstract unix sockets of processes outside the sandbox"})
	}
	return ds
}

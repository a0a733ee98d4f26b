package domain

import (
	"reflect"
	"slices"
)

// SandboxNarrows reports whether a command started under old holds more
// than nw grants a command, so that a mid-turn change from old to nw must
// stop the commands still running under old. It is conservative: anything
// it cannot show nw grants (a filesystem entry, a rule set, a network or
// environment setting that differs in a way it does not order) counts as
// narrowing; a change it calls a widening leaves running commands alone,
// since each keeps the kernel sandbox it started with.
//
// A snapshot whose commands are refused (its enforcement unavailable: a
// profile's rule the kernel cannot hold) narrows one whose commands run,
// whatever its policies say: a unix-socket allow-list or a network only the
// egress proxy could limit is held by refusing the command, not by a
// policy field (the thirty-third review: a child narrowed to such a parent
// kept running its commands, since the policies compared equal).
func SandboxNarrows(old, nw *TurnExecutionSecuritySnapshot) bool {
	op, np := &old.PermissionProfile.EffectivePolicy, &nw.PermissionProfile.EffectivePolicy
	return (old.CanSpawn() && !nw.CanSpawn()) || filesystemNarrows(&old.Sandbox, &nw.Sandbox) ||
		networkNarrows(&old.Network, &nw.Network) || processNarrows(&old.Process, &nw.Process) ||
		// A restricted allowed_paths denies every command the table
		// allows outright (Evaluate): a running one, which nothing holds
		// to the list, stops too (the hundred-and-twenty-third review).
		listBroader(op.AllowedPaths, op.AllowedPathsRestricted, np.AllowedPaths, np.AllowedPathsRestricted, PathWithin) ||
		// So does a tool list that now refuses a tool it allowed (a
		// running command is one of the turn's tools: the
		// hundred-and-twenty-fifth review).
		listBroader(op.AllowedTools, op.AllowedToolsRestricted, np.AllowedTools, np.AllowedToolsRestricted, func(x, y string) bool { return x == y }) ||
		slices.ContainsFunc(np.DeniedTools, func(t string) bool { return !slices.Contains(op.DeniedTools, t) }) ||
		// And a table that now denies commands (the
		// hundred-and-twenty-sixth review).
		shellDenied(np) && !shellDenied(op)
}

// shellDenied reports whether the policy p denies every shell command.
func shellDenied(p *ToolPermissionPolicySnapshot) bool {
	b, _ := p.BehaviorFor(ActionShellCommand)
	return b == BehaviorDeny
}

func filesystemNarrows(old, nw *SandboxPolicy) bool {
	if nw.Filesystem.Unrestricted {
		return false
	}
	if old.Filesystem.Unrestricted || StricterSandbox(old.Mode, nw.Mode) != old.Mode || old.Tmp != nw.Tmp {
		return true
	}
	if old.BackendRequirement != BackendRequired && nw.BackendRequirement == BackendRequired {
		return true // a degraded sandbox no longer runs commands
	}
	if !reflect.DeepEqual(old.Filesystem.Rules, nw.Filesystem.Rules) {
		return true
	}
	if len(nw.Filesystem.Rules) > 0 && nw.Filesystem.GlobScanMaxDepth > old.Filesystem.GlobScanMaxDepth {
		// The rules' matches are hidden this many levels down: deeper
		// hides more (the hundred-and-twelfth review).
		return true
	}
	// Access is the most specific entry's (ties: the narrower), so it is
	// constant between listed paths: comparing at every path either side
	// lists compares everywhere.
	// AccessAt, what the kernel and the decisions enforce: a protected
	// carve-out turned into a grant (the hundred-and-fourteenth review)
	// was the same to the most specific entry's access.
	if slices.Equal(old.Filesystem.Entries, nw.Filesystem.Entries) {
		return false // (the rules compared above)
	}
	seen := make(map[string]bool, len(old.Filesystem.Entries))
	for _, es := range [][]FilesystemEntry{old.Filesystem.Entries, nw.Filesystem.Entries} {
		for _, e := range es {
			if seen[e.ResolvedPath] {
				continue
			}
			seen[e.ResolvedPath] = true
			was, is := AccessAt(&old.Filesystem, e.ResolvedPath), AccessAt(&nw.Filesystem, e.ResolvedPath)
			if was != AccessDeny && !is.Covers(was) {
				return true
			}
		}
	}
	for _, e := range nw.Filesystem.Entries {
		switch {
		case e.Kind == PathProtected && AccessAt(&old.Filesystem, e.ResolvedPath) == AccessWrite &&
			!slices.ContainsFunc(old.Filesystem.Entries, func(o FilesystemEntry) bool {
				return o.Kind == PathProtected && o.ResolvedPath == e.ResolvedPath && o.Access.Covers(e.Access)
			}):
			return true // a pin (.git, held where it is) where old let the command write
		case e.LedTo != "" && slices.ContainsFunc(old.Filesystem.Entries, func(o FilesystemEntry) bool {
			return o.Kind == e.Kind && o.ResolvedPath == e.ResolvedPath && o.LedTo != e.LedTo
		}):
			return true // a root bound where it led, which old was not (or elsewhere)
		}
	}
	return false
}

func networkNarrows(old, nw *NetworkPolicy) bool {
	if nw.Mode == NetworkEnabled && len(nw.AllowedDomains) == 0 && len(nw.DeniedDomains) == 0 &&
		nw.AllowLocalhost && nw.AllowUnixSockets && nw.AllowPrivateNetworks && len(nw.AllowedMethods) == 0 {
		return false
	}
	if StricterNetwork(old.Mode, nw.Mode) != old.Mode && old.Mode != nw.Mode {
		return true
	}
	if old.Mode == NetworkDisabled {
		// Only the host's unix sockets, which a disabled network may
		// still reach (allow_unix_sockets): taking them away narrows
		// (the hundred-and-twelfth review).
		return old.AllowUnixSockets && !nw.AllowUnixSockets || !old.Locked && nw.Locked
	}
	return (old.AllowLocalhost && !nw.AllowLocalhost) || (old.AllowUnixSockets && !nw.AllowUnixSockets) ||
		(old.AllowPrivateNetworks && !nw.AllowPrivateNetworks) || (old.AllowNamedLoopback && !nw.AllowNamedLoopback) ||
		!slices.Equal(old.AllowedDomains, nw.AllowedDomains) || !slices.Equal(old.DeniedDomains, nw.DeniedDomains) ||
		methodsBroader(old.AllowedMethods, nw.AllowedMethods)
}

func processNarrows(old, nw *ProcessPolicy) bool {
	if old.ShellEnabled && !nw.ShellEnabled {
		return true
	}
	if nw.MaxDurationMs > 0 && (old.MaxDurationMs == 0 || nw.MaxDurationMs < old.MaxDurationMs) {
		return true
	}
	for _, c := range nw.DeniedCommands {
		if !slices.Contains(old.DeniedCommands, c) {
			return true
		}
	}
	if len(nw.AllowedCommandFamilies) > 0 {
		for _, c := range old.AllowedCommandFamilies {
			if !slices.Contains(nw.AllowedCommandFamilies, c) {
				return true
			}
		}
		if len(old.AllowedCommandFamilies) == 0 {
			return true
		}
	}
	// The environment a running command got cannot be taken back: a
	// change that would withhold more of it narrows.
	return envNarrows(&old.Environment, &nw.Environment)
}

func envNarrows(old, nw *EnvironmentPolicy) bool {
	if reflect.DeepEqual(old, nw) {
		return false
	}
	if nw.Profile != nil || old.Profile != nil {
		return true
	}
	if old.Inherit && !nw.Inherit {
		return true
	}
	for _, p := range nw.DeniedPatterns {
		if !slices.Contains(old.DeniedPatterns, p) {
			return true
		}
	}
	if !nw.Inherit {
		for _, v := range old.AllowedVars {
			if !slices.Contains(nw.AllowedVars, v) {
				return true
			}
		}
	}
	return false
}

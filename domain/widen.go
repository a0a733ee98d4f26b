package domain

import "slices"

// Widens reports whether moving a turn's permissions from old to nw may
// grant anything old did not: a looser behaviour for any action kind, a
// loosened tool or path list, another approval scope, or a filesystem,
// network or process dimension opened (SandboxNarrows seen backwards). It
// is conservative: a change it cannot order counts as widening.
func Widens(old, nw *TurnExecutionSecuritySnapshot) bool {
	if SandboxNarrows(nw, old) {
		return true
	}
	// And the networks as a call a person may approve sees them
	// (Approvable): a network disabled until granted opens to the list it
	// keeps, or to every host. SandboxNarrows orders the networks the
	// commands get, where two disabled ones differ only in their sockets;
	// so trading an allow-list (restricted, or disabled until granted
	// with one) for a disabled network without one was no widening, and
	// after it a person was asked about any host (the hundred-and-
	// seventy-seventh review).
	if a, b := untilGranted(old.Network), untilGranted(nw.Network); networkNarrows(&b, &a) {
		return true
	}
	for _, s := range nw.Approval.AllowedScopes {
		if !slices.Contains(old.Approval.AllowedScopes, s) {
			return true
		}
	}
	return policyWidens(&old.PermissionProfile.EffectivePolicy, &nw.PermissionProfile.EffectivePolicy)
}

func policyWidens(old, nw *ToolPermissionPolicySnapshot) bool {
	pairs := [][2]Behavior{
		{old.DefaultBehavior, nw.DefaultBehavior}, {old.FileRead, nw.FileRead}, {old.FileWrite, nw.FileWrite},
		{old.ShellCommand, nw.ShellCommand}, {old.Network, nw.Network}, {old.MCPRead, nw.MCPRead},
		{old.MCPWriteOrUnknown, nw.MCPWriteOrUnknown}, {old.DynamicSkillTool, nw.DynamicSkillTool},
		{old.ComputerUse, nw.ComputerUse}, {old.TaskSubagent, nw.TaskSubagent},
	}
	for _, p := range pairs {
		if StricterBehavior(p[0], p[1]) != p[1] { // the new one is looser
			return true
		}
	}
	if listLoosened(old.AllowedToolsRestricted, old.AllowedTools, nw.AllowedToolsRestricted, nw.AllowedTools) ||
		listLoosened(old.AllowedPathsRestricted, old.AllowedPaths, nw.AllowedPathsRestricted, nw.AllowedPaths) {
		return true
	}
	for _, t := range old.DeniedTools {
		if !slices.Contains(nw.DeniedTools, t) {
			return true
		}
	}
	return false
}

// listLoosened reports whether an allow-list got wider: it was restricted
// and is not, or it names something it did not.
func listLoosened(oldRestricted bool, old []string, nwRestricted bool, nw []string) bool {
	if !oldRestricted && len(old) == 0 {
		return false // there was no list
	}
	if !nwRestricted && len(nw) == 0 {
		return true
	}
	for _, x := range nw {
		if !slices.Contains(old, x) {
			return true
		}
	}
	return false
}

package domain

// RestrictsReach reports whether s limits what a program that no kernel
// sandbox of turnstile's holds could reach (a command a CLI runtime runs
// itself, an MCP server's tool): a sandbox that is not unrestricted, a deny
// entry or rule of the profile's, or a network that is not full_access's
// (disabled or restricted, host lists, localhost, private ranges or unix
// sockets closed, methods limited), or a restricted allowed_paths (which
// binds the calls whose files are known; a command's are not: the
// hundred-and-nineteenth review). Such a call is allowed outright only
// where s restricts nothing: otherwise nothing but the decision holds it.
// The gateway's own secrets (sensitive paths) and the system's rules (the
// operator's constraints, the protected list) are not counted: they bind
// full_access turns too, whose commands a CLI runtime runs unheld as well.
func (s *TurnExecutionSecuritySnapshot) RestrictsReach() bool {
	if s.PermissionProfile.EffectivePolicy.AllowedPathsRestricted {
		return true
	}
	if s.Sandbox.Mode != SandboxUnrestricted && !systemOnly(&s.Sandbox.Filesystem) {
		return true
	}
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.Access == AccessDeny && e.Kind != PathSensitive {
			return true
		}
	}
	for _, r := range s.Sandbox.Filesystem.Rules {
		if r.Access == AccessDeny && r.Provenance != RuleFromSystem {
			return true
		}
	}
	n := &s.Network
	return n.Mode != NetworkEnabled || len(n.AllowedDomains) > 0 || len(n.DeniedDomains) > 0 ||
		!n.AllowLocalhost || !n.AllowPrivateNetworks || !n.AllowUnixSockets || len(n.AllowedMethods) > 0
}

// systemOnly reports whether fs is all of / writable but for the system's
// rules: an operator's required deny makes a full_access profile compile
// so (its sandbox then enforces the deny and the protected list), and the
// profile itself restricts nothing (the eighty-sixth review: every Claude
// Code Bash and MCP call of a full_access session under such an operator
// was refused).
func systemOnly(fs *FilesystemPolicy) bool {
	root := false
	for _, r := range fs.Rules {
		switch {
		case r.Provenance == RuleFromSystem:
		case r.Key == TokenRoot && !r.Glob && r.Access == AccessWrite && !r.Overlay:
			root = true
		default:
			return false
		}
	}
	return root
}

package domain

// Built-in profile names (REFERENCE §10).
const (
	BuiltinReadOnly         = ":read-only"
	BuiltinWorkspace        = ":workspace"
	BuiltinDangerFullAccess = ":danger-full-access"
)

// BuiltinModes maps each built-in to the mode whose resolved snapshot it
// equals in effect: :read-only is supervised, :workspace is
// auto_accept_edits, :danger-full-access is full_access.
var BuiltinModes = map[string]Mode{
	BuiltinReadOnly:         ModeSupervised,
	BuiltinWorkspace:        ModeAutoAcceptEdits,
	BuiltinDangerFullAccess: ModeFullAccess,
}

// BuiltinProfiles returns fresh copies of the built-in profiles, written as
// the modes resolve (domain/resolve.go): the system read roots and devices
// (:minimal), the workspace and project roots read or written, the
// runtime's app roots read; the network off; the core environment without
// secrets; the restricted denied commands; the mode's behaviour table. The
// protected names (.git, .agents, .codex) inside every writable root are
// added by Compile for any restricted profile, not listed here.
func BuiltinProfiles() map[string]*Profile {
	off, on := false, true
	restrictedEnv := ProfileEnvironment{Inherit: InheritCore, Exclude: secretExcludes()}
	return map[string]*Profile{
		BuiltinReadOnly: {
			Name: BuiltinReadOnly,
			Filesystem: map[string]Access{
				TokenMinimal: AccessRead, TokenWorkspaceRoots: AccessRead, TokenAppReadRoots: AccessRead,
			},
			Network:     ProfileNetwork{Enabled: &off},
			Environment: restrictedEnv,
			Process:     ProfileProcess{TimeoutCapMs: MaxCommandDurationMs, DeniedCommands: append([]string(nil), RestrictedDeniedCommands...)},
			Approvals:   ProfileApprovals{Policy: ModeSupervised},
		},
		BuiltinWorkspace: {
			Name: BuiltinWorkspace,
			Filesystem: map[string]Access{
				TokenMinimal: AccessRead, TokenWorkspaceRoots: AccessWrite, TokenAppReadRoots: AccessRead,
			},
			Network:     ProfileNetwork{Enabled: &off},
			Environment: restrictedEnv,
			Process:     ProfileProcess{TimeoutCapMs: MaxCommandDurationMs, DeniedCommands: append([]string(nil), RestrictedDeniedCommands...)},
			Approvals:   ProfileApprovals{Policy: ModeAutoAcceptEdits},
		},
		BuiltinDangerFullAccess: {
			Name:        BuiltinDangerFullAccess,
			Filesystem:  map[string]Access{TokenRoot: AccessWrite},
			Network:     ProfileNetwork{Enabled: &on, Mode: "full", AllowLocalhost: true, AllowPrivateNetworks: true, UnixSockets: map[string]bool{"/": true}},
			Environment: ProfileEnvironment{Inherit: InheritAll, Exclude: []string{}},
			Process:     ProfileProcess{TimeoutCapMs: MaxCommandDurationMs},
			Approvals:   ProfileApprovals{Policy: ModeFullAccess},
		},
	}
}

// secretExcludes writes SecretEnvPatterns as exclude globs (*TOKEN*, …).
func secretExcludes() []string {
	out := make([]string, len(SecretEnvPatterns))
	for i, p := range SecretEnvPatterns {
		out[i] = "*" + p + "*"
	}
	return out
}

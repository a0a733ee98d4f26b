package domain

import (
	"fmt"
	"slices"
	"strings"
)

// ResolveProfileSnapshot compiles a profile into the same execution security
// snapshot a mode resolves to (REFERENCE §4, §10), so that one system
// applies, never two:
//
//   - permission_profile: the profile's name, its behaviour table's mode
//     and the table (with auto-rejected categories denied);
//   - sandbox: unrestricted for exactly ":root" = write, else
//     workspace_write when a rule grants write beyond the devices, else
//     read_only; the filesystem entries are the path rules the kernel is
//     given (globs are not: they stay in Rules, which decisions resolve
//     with, and are reported as a filesystem degradation);
//   - network: disabled, or enabled (domain rules and "limited" need the
//     egress proxy, so an enabled network with them is unrestricted egress,
//     reported as a network degradation);
//   - process: the profile's environment filter, timeout cap and denied
//     commands.
//
// Degradations with a required backend make the snapshot unavailable: a
// rule the kernel cannot enforce is reported, never claimed.
func ResolveProfileSnapshot(cp *CompiledProfile, source ProfileSource, in SnapshotInputs) (TurnExecutionSecuritySnapshot, error) {
	if in.ExecutionBackend == "" {
		in.ExecutionBackend = BackendNative
	}
	if _, err := parseEnum("execution_backend", string(in.ExecutionBackend), ExecutionBackends); err != nil {
		return TurnExecutionSecuritySnapshot{}, err
	}
	in.Profile = TurnPermissionProfileSnapshot{Mode: cp.BasePolicy, Profile: cp.Name, Source: source, EffectivePolicy: cp.Policy}
	s := TurnExecutionSecuritySnapshot{
		PermissionProfile: in.Profile,
		Sandbox:           profileSandbox(cp, in),
		Network:           profileNetworkPolicy(cp),
		Process:           profileProcess(cp),
		Approval:          ApprovalPolicy{AllowedScopes: []Resolution{ResolutionAllowOnce, ResolutionAllowForTurn}},
		Backend:           resolveBackend(in),
	}
	s.Enforcement = withDegradations(&s, ComputeEnforcement(&s), profileDegradations(cp))
	return s, nil
}

func profileSandbox(cp *CompiledProfile, in SnapshotInputs) SandboxPolicy {
	sb := SandboxPolicy{
		Cwd: cp.Cwd, Tmp: TmpIsolated, BackendRequirement: BackendRequired,
		BackendPreference: preferredSandboxBackend(in.ExecutionBackend), Mode: SandboxReadOnly,
	}
	if cp.Unrestricted {
		sb.Mode, sb.Tmp, sb.BackendRequirement = SandboxUnrestricted, TmpHost, BackendOptional
		sb.Filesystem.Unrestricted = true
	}
	project := map[string]bool{}
	for _, r := range in.ProjectRoots {
		project[CleanPath(r)] = true
	}
	for _, r := range cp.Rules {
		if r.Access == AccessWrite && r.Key != TokenMinimal && !sb.Filesystem.Unrestricted {
			sb.Mode = SandboxWorkspaceWrite
		}
		if r.Glob {
			continue
		}
		sb.Filesystem.Entries = append(sb.Filesystem.Entries, FilesystemEntry{
			Kind: ruleKind(&r, project), Path: r.Pattern, Access: r.Access, Provenance: ruleProvenance(&r),
			ResolvedPath: r.Pattern, Origin: r.Origin, Key: r.Key,
		})
	}
	sb.Filesystem.Rules = slices.Clone(cp.Rules)
	return sb
}

func ruleKind(r *PathRule, project map[string]bool) PathKind {
	switch {
	case r.Origin == "protected_paths":
		return PathProtected
	case r.Key == TokenMinimal && slices.Contains(DeviceFiles, r.Pattern):
		return PathDevice
	case r.Key == TokenMinimal:
		return PathSystemRoot
	case r.Key == TokenAppReadRoots:
		return PathAppReadRoot
	case (r.Key == TokenWorkspaceRoots || r.Key == TokenProjectRoots) && project[r.Pattern]:
		return PathProjectRoot
	case r.Key == TokenWorkspaceRoots || r.Key == TokenProjectRoots:
		return PathWorkspaceRoot
	}
	return PathExplicit
}

func ruleProvenance(r *PathRule) Provenance {
	switch r.Provenance {
	case RuleFromProfile:
		return ProvenanceProfile
	case RuleFromBuiltin:
		return ProvenanceBuiltin
	}
	return ProvenanceSystem
}

// profileNetworkPolicy writes the profile's network in the snapshot's
// vocabulary: profile "example.com" (exact) is "=example.com"; "*.d" and
// "**.d" are the same; "*" in the allow-list is no allow-list.
func profileNetworkPolicy(cp *CompiledProfile) NetworkPolicy {
	n := cp.Network
	if !n.Enabled {
		return NetworkPolicy{Mode: NetworkDisabled, AllowUnixSockets: len(n.UnixSockets) > 0}
	}
	p := NetworkPolicy{Mode: NetworkEnabled, AllowLocalhost: n.AllowLocalhost, AllowPrivateNetworks: n.AllowPrivateNetworks,
		AllowUnixSockets: len(n.UnixSockets) > 0}
	snapRule := func(raw string) string {
		if strings.HasPrefix(raw, "*") {
			return raw
		}
		return "=" + raw
	}
	if n.Restricted && !slices.Contains(n.Allow, "*") {
		p.Mode = NetworkRestricted
		for _, a := range n.Allow {
			p.AllowedDomains = append(p.AllowedDomains, snapRule(a))
		}
	}
	for _, d := range n.Deny {
		p.DeniedDomains = append(p.DeniedDomains, snapRule(d))
	}
	for _, a := range n.Allow {
		if a == "localhost" {
			p.AllowLocalhost = true
		}
	}
	return p
}

func profileProcess(cp *CompiledProfile) ProcessPolicy {
	env := cp.Environment
	p := ProcessPolicy{
		ShellEnabled:     true,
		DefaultTimeoutMs: min(DefaultCommandTimeoutMs, cp.Process.TimeoutCapMs),
		MaxDurationMs:    cp.Process.TimeoutCapMs,
		DeniedCommands:   slices.Clone(cp.Process.DeniedCommands),
		Environment: EnvironmentPolicy{
			// The legacy fields are a safe approximation (what a child
			// turn's cap intersection reads); Profile is the exact filter.
			Inherit: env.Inherit == InheritAll && len(env.Exclude) == 0 && !env.IncludeOnlySet && len(env.Set) == 0,
			Profile: &env,
		},
	}
	if !p.Environment.Inherit {
		p.Environment.DeniedPatterns = slices.Clone(SecretEnvPatterns)
		if env.Inherit != InheritNone {
			p.Environment.AllowedVars = slices.Clone(RestrictedEnvAllowList)
		}
	}
	if env.Inherit == InheritAll {
		p.InheritStdin, p.InheritSession = cp.Unrestricted, cp.Unrestricted
	}
	return p
}

// profileDegradations lists what the profile asks for that no enforcement
// here provides.
func profileDegradations(cp *CompiledProfile) []Degradation {
	var ds []Degradation
	var globs []string
	for _, r := range cp.Rules {
		if r.Glob {
			globs = append(globs, r.Key)
		}
	}
	if len(globs) > 0 {
		slices.Sort(globs)
		ds = append(ds, Degradation{Dimension: "filesystem", Reason: fmt.Sprintf(
			"glob deny rules (%s) are checked at decision time only: the kernel does not mask their matches", strings.Join(slices.Compact(globs), ", "))})
	}
	if n := cp.Network; n.Enabled && (n.Restricted || n.Limited) {
		ds = append(ds, Degradation{Dimension: "network",
			Reason: "domain rules and limited methods need the egress proxy, which is not available: the kernel cannot hold commands to them"})
	}
	return ds
}

// withDegradations adds extra degradations to e and recomputes its status
// by the rule of REFERENCE §4.
func withDegradations(s *TurnExecutionSecuritySnapshot, e Enforcement, extra []Degradation) Enforcement {
	if len(extra) == 0 {
		return e
	}
	ds := append(slices.Clone(e.Degradations), extra...)
	if s.Sandbox.BackendRequirement != BackendRequired {
		return Enforcement{Status: EnforcementPartiallyActive, Degradations: ds}
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Dimension
	}
	return Enforcement{Status: EnforcementUnavailable, Degradations: ds,
		Reason: "the sandbox backend is required but cannot enforce: " + strings.Join(slices.Compact(names), ", ")}
}

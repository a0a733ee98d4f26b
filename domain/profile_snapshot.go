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
	s.Enforcement = withDegradations(&s, ComputeEnforcement(&s), append(profileDegradations(cp, in.Kernel), kernelGaps(&s.Sandbox.Filesystem)...))
	return s, nil
}

func profileSandbox(cp *CompiledProfile, in SnapshotInputs) SandboxPolicy {
	sb := SandboxPolicy{
		Cwd: cp.Cwd, Tmp: TmpIsolated, BackendRequirement: BackendRequired,
		BackendPreference: preferredSandboxBackend(in.ExecutionBackend), Mode: SandboxReadOnly,
	}
	sb.Filesystem.Rules = slices.Clone(cp.Rules)
	if slices.ContainsFunc(cp.Rules, func(r PathRule) bool { return r.Glob }) {
		sb.Filesystem.GlobScanMaxDepth = cp.GlobScanMaxDepth
	}
	if cp.Unrestricted {
		sb.Mode, sb.Tmp, sb.BackendRequirement = SandboxUnrestricted, TmpHost, BackendOptional
		sb.Filesystem.Unrestricted = true
	}
	project := map[string]bool{}
	for _, r := range in.ProjectRoots {
		project[CleanPath(r)] = true
	}
	var es []FilesystemEntry
	for _, r := range cp.Rules {
		if r.Access == AccessWrite && r.Key != TokenMinimal && !cp.Unrestricted {
			sb.Mode = SandboxWorkspaceWrite
		}
		if r.Glob || r.Origin == "protected_paths" {
			continue // globs stay rules; protected paths come from the list below
		}
		e := FilesystemEntry{Kind: ruleKind(&r, project), Path: r.Pattern, Access: r.Access, Provenance: ruleProvenance(&r),
			ResolvedPath: r.Pattern, Origin: r.Origin, Key: r.Key, Overlay: r.Overlay}
		if r.Locked {
			e.Kind = PathSensitive // an operator's deny caps every grant, like a sensitive path
		}
		es = append(es, e)
	}
	if !cp.Unrestricted {
		es = append(es, protectedEntries(protectedList(in.ProtectedPaths), es, cp.Cwd)...)
		// A read rule inside a writable one narrows it; grants alone would
		// take the stronger, so the narrowing is a read-only carve-out. An
		// overlay's is one too: the host's directory is pinned there (its
		// parents cannot be renamed to carry the mount away), held when
		// missing and read-only when a file; the command's overlay is
		// mounted on top of it.
		plain := &FilesystemPolicy{Entries: slices.DeleteFunc(slices.Clone(es), func(e FilesystemEntry) bool { return e.Overlay })}
		for _, r := range cp.Rules {
			if r.Access == AccessRead && !r.Glob && r.Origin != "protected_paths" && AccessAt(plain, r.Pattern) == AccessWrite &&
				ResolvePathRules(cp.Rules, r.Pattern).Access == AccessRead {
				es = append(es, FilesystemEntry{Kind: PathProtected, Path: r.Pattern, Access: AccessRead, Provenance: ruleProvenance(&r),
					ResolvedPath: r.Pattern, Origin: r.Origin, Key: r.Key})
			}
		}
		// The sensitive paths bind a profile as they bind a restricted
		// mode: entries (the checker and the kernel), and locked deny
		// rules for the pattern-free ones (patterns stay entries, which
		// the sandbox's checker matches).
		for _, e := range SensitiveEntries(in.SensitivePaths...) {
			es = append(es, e)
			if !strings.Contains(e.Path, "*") {
				sb.Filesystem.Rules = append(sb.Filesystem.Rules, PathRule{Key: e.Path, Pattern: e.Path, Access: AccessDeny,
					Provenance: RuleFromSystem, Origin: "sensitive_paths", Locked: true})
			}
		}
	}
	sb.Filesystem.Entries = es
	return sb
}

// kernelGaps compares, at every rule's path and just below it, what the
// entries grant (AccessAt: what the kernel enforces) with what the rules
// decide: where the entries grant more, the kernel cannot hold the profile
// there, and that is a degradation naming the rule. (Where they grant less,
// decisions take the narrower and the command sees the same.)
func kernelGaps(fs *FilesystemPolicy) []Degradation {
	if fs.Unrestricted {
		return nil
	}
	var gaps []string
	for _, r := range fs.Rules {
		if r.Glob || r.Origin == "protected_paths" {
			// A protected item only narrows a grant to read: where a rule
			// denies it instead (a glob such as **/*.env over .env), that
			// rule's own check, or its glob's degradation, says what the
			// kernel holds there.
			continue
		}
		for _, p := range []string{r.Pattern, CleanPath(r.Pattern + "/.turnstile-probe")} {
			if AccessAt(fs, p).rank() > ResolvePathRules(fs.Rules, p).Access.rank() {
				gaps = append(gaps, fmt.Sprintf("%s (%q = %s)", p, r.Key, r.Access))
				break
			}
		}
	}
	if len(gaps) == 0 {
		return nil
	}
	return []Degradation{{Dimension: "filesystem", Reason: "the kernel would grant more than the profile at " + strings.Join(gaps, ", ")}}
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
		return profileNetworkOff(&n)
	}
	p := NetworkPolicy{Mode: NetworkEnabled, AllowLocalhost: n.AllowLocalhost, AllowPrivateNetworks: n.AllowPrivateNetworks,
		AllowUnixSockets: len(n.UnixSockets) > 0}
	snapRule := SnapshotDomainRule
	star := slices.Contains(n.Allow, "*")
	if n.Restricted && !star {
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
		// A loopback address the allow-list names (REFERENCE §10: "an
		// allow-list names that IP literal"), asked for by that literal
		// only: not the whole localhost gate, which opened every
		// loopback address to a name the list matches (the fifty-
		// seventh review).
		_, addr, ok := ParseHost(strings.Trim(a, "[]"), false)
		if !ok || !addr.IsValid() || ClassifyAddr(addr) == AddrPublic {
			continue
		}
		if star && n.Restricted {
			// Under "*" (no allow-list) a special address the list names
			// is still opened by its exact rule, as the profile's own
			// decision answers (the sixtieth review).
			p.AllowedDomains = append(p.AllowedDomains, snapRule(a))
		}
		if ClassifyAddr(addr) == AddrLocalhost && (p.Mode == NetworkRestricted || star) {
			p.AllowNamedLoopback = true
		}
	}
	if n.Limited {
		p.AllowedMethods = []string{"GET", "HEAD", "OPTIONS"}
	}
	return p
}

// profileNetworkOff is a profile's network that is off: disabled until
// granted (Approvable), keeping the rules it would be granted under (its
// denied domains, its allow-list, "limited"'s methods) and no flag beyond
// what a disabled network had. It dropped them, and a host the profile
// denies was asked of a person (the hundred-and-seventy-sixth review). An
// allow-list with nothing in it can grant no host: locked.
func profileNetworkOff(n *CompiledNetwork) NetworkPolicy {
	p := NetworkPolicy{Mode: NetworkDisabled, AllowUnixSockets: len(n.UnixSockets) > 0}
	for _, d := range n.Deny {
		p.DeniedDomains = append(p.DeniedDomains, SnapshotDomainRule(d))
	}
	if n.Restricted && !slices.Contains(n.Allow, "*") {
		for _, a := range n.Allow {
			p.AllowedDomains = append(p.AllowedDomains, SnapshotDomainRule(a))
		}
		p.Locked = len(p.AllowedDomains) == 0
	}
	if n.Limited {
		p.AllowedMethods = []string{"GET", "HEAD", "OPTIONS"}
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
// here provides on kernel k (with k.EgressProxy, a restricted network's
// domain rules and limited methods are enforced on commands by the egress
// proxy; with user namespaces, glob matches existing at spawn are masked).
func profileDegradations(cp *CompiledProfile, k KernelFeatures) []Degradation {
	egress := k.EgressProxy
	var ds []Degradation
	var globs []string
	for _, r := range cp.Rules {
		if r.Glob {
			globs = append(globs, r.Key)
		}
	}
	if len(globs) > 0 {
		slices.Sort(globs)
		list := strings.Join(slices.Compact(globs), ", ")
		if k.UserNamespaces && k.LandlockABI > 0 && !cp.Unrestricted {
			// The sandbox masks the matches that exist at spawn (in its
			// mount namespace); what is left is named, not blocking.
			ds = append(ds, Degradation{Dimension: "filesystem", Residual: true, Reason: fmt.Sprintf(
				"glob deny rules (%s): matches existing at spawn, up to %d levels below each granted root (system directories not scanned), are masked by the kernel; files created or renamed to match after the spawn are checked at decision time only",
				list, cp.GlobScanMaxDepth)})
		} else {
			ds = append(ds, Degradation{Dimension: "filesystem", Reason: fmt.Sprintf(
				"glob deny rules (%s) are checked at decision time only: without user namespaces the kernel does not mask their matches", list)})
		}
	}
	var overlays []string
	for _, r := range cp.Rules {
		if r.Overlay {
			overlays = append(overlays, r.Key)
		}
	}
	if len(overlays) > 0 && !k.UserNamespaces {
		// Narrower than asked, never wider: named, not blocking.
		slices.Sort(overlays)
		ds = append(ds, Degradation{Dimension: "filesystem", Residual: true, Reason: fmt.Sprintf(
			"overlay rules (%s): without a mount namespace the sandbox cannot give a command its own overlay, so these directories are read-only to commands",
			strings.Join(slices.Compact(overlays), ", "))})
	}
	if socks := cp.Network.UnixSockets; len(socks) > 0 && !slices.Equal(socks, []string{"/"}) {
		ds = append(ds, Degradation{Dimension: "network", Reason: fmt.Sprintf(
			"unix sockets are allowed all or none here: the allow-list (%s) would open every socket", strings.Join(socks, ", "))})
	}
	// A restricted network (an allow-list without "*") puts every command
	// connection through the egress proxy, which judges it.
	proxied := egress && cp.Network.Restricted && !slices.Contains(cp.Network.Allow, "*")
	if n := cp.Network; n.Enabled && (n.Restricted || n.Limited) && !proxied {
		why := "the egress proxy, which is not available"
		if egress {
			// The proxy runs, but carries only an allow-list without "*".
			why = `the egress proxy, which carries a command's connections only under an allow-list without "*" (this network is a block-list, or limited alone)`
		}
		ds = append(ds, Degradation{Dimension: "network",
			Reason: "domain rules and limited methods need " + why + ": the kernel cannot hold commands to them"})
	} else if n.Enabled && (!n.AllowLocalhost || !n.AllowPrivateNetworks) && !proxied {
		ds = append(ds, Degradation{Dimension: "network",
			Reason: "loopback, private and metadata addresses are refused at decision time only: without the egress proxy a command's connections reach them"})
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
	var names []string
	for _, d := range ds {
		if !d.Residual {
			names = append(names, d.Dimension)
		}
	}
	if s.Sandbox.BackendRequirement != BackendRequired || len(names) == 0 {
		return Enforcement{Status: EnforcementPartiallyActive, Degradations: ds}
	}
	return Enforcement{Status: EnforcementUnavailable, Degradations: ds,
		Reason: "the sandbox backend is required but cannot enforce: " + strings.Join(slices.Compact(names), ", ")}
}

// approvableRules opens a profile's rules the way Approvable opens a
// read-only sandbox's entries: the workspace and project roots themselves
// (the ":workspace_roots" / ":project_roots" rules) become writable, with
// the protected paths read-only inside them; every other rule stays. A
// root's rule that the profile's own rules cap (PathRule.Capped: a root the
// runtime named inside a read-only carve-out) stays as it is.
func approvableRules(rules []PathRule, cwd string) []PathRule {
	if len(rules) == 0 {
		return rules
	}
	out := slices.Clone(rules)
	// A capped rule caps every root rule at its pattern: a child bounded
	// by its parent (mergedRules) keeps its own uncapped rule beside the
	// parent's capped one, and opened, write won the tie (the hundred-
	// and-seventy-ninth review).
	capped := map[string]bool{}
	for _, r := range rules {
		if r.Capped {
			capped[r.Pattern] = true
		}
	}
	var opened []PathRule
	for i, r := range out {
		if (r.Key == TokenWorkspaceRoots || r.Key == TokenProjectRoots) && r.Access == AccessRead && !r.Capped && !capped[r.Pattern] {
			out[i].Access = AccessWrite
			opened = append(opened, out[i])
		}
	}
	for _, p := range protectedRules(opened, cwd) {
		if !slices.ContainsFunc(out, func(r PathRule) bool { return r.Origin == p.Origin && r.Pattern == p.Pattern }) {
			out = append(out, p)
		}
	}
	return out
}

package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// TaskCap bounds a child turn (a task or sub-agent). Every field is optional;
// an absent field does not bound that dimension. A cap may only narrow its
// parent: one broader than the parent in any dimension is refused.
type TaskCap struct {
	Mode        Mode                          `json:"mode,omitempty"`
	Policy      *ToolPermissionPolicySnapshot `json:"policy,omitempty"`
	SandboxMode SandboxMode                   `json:"sandbox_mode,omitempty"`
	Network     *NetworkPolicy                `json:"network,omitempty"`
	Process     *ProcessPolicy                `json:"process,omitempty"`
	// FilesystemRoots, when non-empty, are the only roots the child may use.
	FilesystemRoots []CapRoot `json:"filesystem_roots,omitempty"`
}

// CheckTaskCapSize refuses a task cap whose encoding is longer than
// MaxListBytes: a cap may only narrow, but its lists (denied tools,
// domains and commands, roots) are kept with the child turn as a
// profile's are (CheckProfileRequest).
func CheckTaskCapSize(c *TaskCap) error {
	if c == nil {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return &FieldError{Field: "task_cap", Message: err.Error()}
	}
	if len(b) > MaxListBytes {
		return &FieldError{Field: "task_cap", Message: fmt.Sprintf("is %d bytes encoded; the limit is %d", len(b), MaxListBytes)}
	}
	return nil
}

// CapRoot is one root a task cap allows, with its access (read when empty).
type CapRoot struct {
	Path   string `json:"path"`
	Access Access `json:"access,omitempty"`
}

// CapExceedsParentError refuses a cap broader than its parent; Dimensions
// names each part that exceeds (profile, sandbox mode, network policy,
// process policy, filesystem roots).
type CapExceedsParentError struct {
	Dimensions []string
	// Fields names the policy fields that exceed (task_cap.policy.<field>),
	// when the profile does because of them.
	Fields []string
}

func (e *CapExceedsParentError) Error() string {
	msg := "task cap is broader than the parent turn in: " + strings.Join(e.Dimensions, ", ")
	if len(e.Fields) > 0 {
		msg += " (" + strings.Join(e.Fields, ", ") + ")"
	}
	return msg
}

// Bounds are the intersectable parts of a snapshot.
type Bounds struct {
	Mode        Mode
	Policy      ToolPermissionPolicySnapshot
	SandboxMode SandboxMode
	Filesystem  FilesystemPolicy
	Network     NetworkPolicy
	Process     ProcessPolicy
	Tmp         TmpPolicy
	Requirement BackendRequirement
}

// BoundsOf extracts a snapshot's bounds.
func BoundsOf(s *TurnExecutionSecuritySnapshot) Bounds {
	return Bounds{
		Mode: s.PermissionProfile.Mode, Policy: s.PermissionProfile.EffectivePolicy, SandboxMode: s.Sandbox.Mode,
		Filesystem: s.Sandbox.Filesystem, Network: s.Network, Process: s.Process,
		Tmp: s.Sandbox.Tmp, Requirement: s.Sandbox.BackendRequirement,
	}
}

// Unbounded is the top element: intersecting with it changes nothing.
func Unbounded() Bounds {
	return Bounds{
		Mode: ModeFullAccess, Policy: CompilePolicy(ModeFullAccess), SandboxMode: SandboxUnrestricted,
		Filesystem: FilesystemPolicy{Unrestricted: true},
		Network:    NetworkPolicy{Mode: NetworkEnabled, AllowLocalhost: true, AllowUnixSockets: true, AllowPrivateNetworks: true},
		Process: ProcessPolicy{ShellEnabled: true, InheritStdin: true, InheritSession: true,
			Environment: EnvironmentPolicy{Inherit: true}, DefaultTimeoutMs: MaxCommandDurationMs, MaxDurationMs: MaxCommandDurationMs},
		Tmp: TmpHost, Requirement: BackendOptional,
	}
}

// Intersect returns the bounds that satisfy both a and b, dimension by
// dimension (REFERENCE §6). It is commutative and idempotent, and the result
// is never broader than either side.
func Intersect(a, b Bounds) Bounds {
	out := Bounds{
		Mode:        StricterMode(a.Mode, b.Mode),
		Policy:      IntersectPolicy(a.Policy, b.Policy),
		SandboxMode: StricterSandbox(a.SandboxMode, b.SandboxMode),
		Filesystem:  IntersectFilesystem(a.Filesystem, b.Filesystem),
		Network:     IntersectNetwork(a.Network, b.Network),
		Process:     IntersectProcess(a.Process, b.Process),
		Tmp:         TmpHost,
		Requirement: BackendOptional,
	}
	if a.Tmp == TmpIsolated || b.Tmp == TmpIsolated {
		out.Tmp = TmpIsolated
	}
	if a.Requirement == BackendRequired || b.Requirement == BackendRequired {
		out.Requirement = BackendRequired
	}
	if out.SandboxMode == SandboxReadOnly {
		out.Filesystem = readOnly(out.Filesystem)
	}
	if out.SandboxMode != SandboxUnrestricted {
		out.Filesystem.Unrestricted = false
	}
	return out
}

// readOnly downgrades every writable root (but devices) to read.
func readOnly(fs FilesystemPolicy) FilesystemPolicy {
	out := FilesystemPolicy{Unrestricted: fs.Unrestricted, Entries: slices.Clone(fs.Entries), GlobScanMaxDepth: fs.GlobScanMaxDepth}
	for i := range out.Entries {
		if out.Entries[i].Access == AccessWrite && out.Entries[i].Kind != PathDevice {
			out.Entries[i].Access = AccessRead
		}
	}
	out = normalizeEntries(out)
	out.GlobScanMaxDepth = fs.GlobScanMaxDepth
	return out
}

// IntersectPolicy intersects two policies: deny > ask > allow field by
// field; restricted tool and path lists intersect; denied tools union.
func IntersectPolicy(a, b ToolPermissionPolicySnapshot) ToolPermissionPolicySnapshot {
	var out ToolPermissionPolicySnapshot
	fa, fb, fo := a.behaviorFields(), b.behaviorFields(), out.behaviorFields()
	for i := range fo {
		*fo[i].ptr = StricterBehavior(*fa[i].ptr, *fb[i].ptr)
	}
	out.AllowedTools, out.AllowedToolsRestricted = intersectLists(a.AllowedTools, a.AllowedToolsRestricted, b.AllowedTools, b.AllowedToolsRestricted, func(x, y string) (string, bool) { return x, x == y })
	out.DeniedTools = sortedUnique(append(slices.Clone(a.DeniedTools), b.DeniedTools...))
	out.AllowedPaths, out.AllowedPathsRestricted = intersectLists(a.AllowedPaths, a.AllowedPathsRestricted, b.AllowedPaths, b.AllowedPathsRestricted, narrowerPath)
	out.normalizeLists()
	if len(out.AllowedPaths) > 0 {
		out.AllowedPaths = dropNested(out.AllowedPaths)
	}
	return out
}

// intersectLists intersects two allow-lists where "unrestricted" means no
// limit; meet returns the meet of two items and whether they overlap.
func intersectLists(a []string, ar bool, b []string, br bool, meet func(x, y string) (string, bool)) ([]string, bool) {
	ar, br = ar || len(a) > 0, br || len(b) > 0
	switch {
	case !ar && !br:
		return nil, false
	case !ar:
		return sortedUnique(b), true
	case !br:
		return sortedUnique(a), true
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			if m, ok := meet(x, y); ok {
				out = append(out, m)
			}
		}
	}
	return sortedUnique(out), true
}

// narrowerPath returns the narrower of two nested paths; disjoint → none.
func narrowerPath(x, y string) (string, bool) {
	x, y = CleanPath(x), CleanPath(y)
	switch {
	case PathWithin(x, y):
		return x, true
	case PathWithin(y, x):
		return y, true
	}
	return "", false
}

// dropNested removes paths covered by another path of the sorted list.
func dropNested(paths []string) []string {
	out := paths[:0:0]
	for _, p := range paths {
		covered := false
		for _, q := range out {
			if PathWithin(p, q) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

// IntersectProcess: flags AND; allowed variables intersect; denied patterns
// and commands union; the shortest timeouts; command families intersect (two
// disjoint family lists leave nothing runnable, so the shell is disabled).
func IntersectProcess(a, b ProcessPolicy) ProcessPolicy {
	out := ProcessPolicy{
		ShellEnabled:     a.ShellEnabled && b.ShellEnabled,
		InheritStdin:     a.InheritStdin && b.InheritStdin,
		InheritSession:   a.InheritSession && b.InheritSession,
		DefaultTimeoutMs: minPositive(a.DefaultTimeoutMs, b.DefaultTimeoutMs),
		MaxDurationMs:    minPositive(a.MaxDurationMs, b.MaxDurationMs),
		DeniedCommands:   sortedUnique(append(slices.Clone(a.DeniedCommands), b.DeniedCommands...)),
	}
	out.DefaultTimeoutMs = min(out.DefaultTimeoutMs, out.MaxDurationMs)
	ea, eb := a.Environment, b.Environment
	if ea.Profile != nil || eb.Profile != nil {
		out.Environment = intersectEnvProfiles(ea, eb)
	} else {
		out.Environment = intersectEnvLists(ea, eb)
	}
	fams, restricted := intersectLists(a.AllowedCommandFamilies, false, b.AllowedCommandFamilies, false, func(x, y string) (string, bool) { return x, x == y })
	out.AllowedCommandFamilies = fams
	if restricted && len(fams) == 0 {
		out.ShellEnabled = false
	}
	return out
}

// intersectEnvLists intersects two plain environment policies: inherit
// only when both do, allowed names in both, denied patterns of either.
func intersectEnvLists(ea, eb EnvironmentPolicy) EnvironmentPolicy {
	var out EnvironmentPolicy
	out.Inherit = ea.Inherit && eb.Inherit
	out.DeniedPatterns = sortedUnique(append(slices.Clone(ea.DeniedPatterns), eb.DeniedPatterns...))
	switch {
	case out.Inherit:
	case ea.Inherit:
		out.AllowedVars = sortedUnique(eb.AllowedVars)
	case eb.Inherit:
		out.AllowedVars = sortedUnique(ea.AllowedVars)
	default:
		var vars []string
		for _, v := range ea.AllowedVars {
			if slices.Contains(eb.AllowedVars, v) {
				vars = append(vars, v)
			}
		}
		out.AllowedVars = sortedUnique(vars)
	}
	return out
}

// intersectEnvProfiles intersects two environment policies of which at
// least one is a profile's filter (which FilterEnv applies instead of the
// plain fields): the result is one filter that passes a variable only when
// both would. A plain policy reads as a filter that inherits all, excludes
// its denied patterns and keeps only its allowed names. Inherit takes the
// stricter, excludes unite, include_only keeps the patterns both name (or
// the one side's), and a variable both set to different values is not set.
func intersectEnvProfiles(ea, eb EnvironmentPolicy) EnvironmentPolicy {
	pa, pb := envFilterOf(ea), envFilterOf(eb)
	out := CompiledEnvironment{
		Inherit: stricterInherit(pa.Inherit, pb.Inherit),
		Exclude: sortedUnique(append(slices.Clone(pa.Exclude), pb.Exclude...)),
	}
	// A variable both set, to different values, is not set, nor taken
	// from the host: left out of Set, the host's value was inherited where
	// neither side lets it be (review 165).
	for _, set := range [2]map[string]string{pa.Set, pb.Set} {
		for k, v := range set {
			wa, inA := pa.Set[k]
			wb, inB := pb.Set[k]
			if inA && inB && wa != wb {
				out.Exclude = append(out.Exclude, k)
				continue
			}
			if out.Set == nil {
				out.Set = map[string]string{}
			}
			out.Set[k] = v
		}
	}
	switch {
	case pa.IncludeOnlySet && pb.IncludeOnlySet:
		out.IncludeOnlySet = true
		for _, p := range pa.IncludeOnly {
			if slices.Contains(pb.IncludeOnly, p) {
				out.IncludeOnly = append(out.IncludeOnly, p)
			}
		}
	case pa.IncludeOnlySet:
		out.IncludeOnly, out.IncludeOnlySet = slices.Clone(pa.IncludeOnly), true
	case pb.IncludeOnlySet:
		out.IncludeOnly, out.IncludeOnlySet = slices.Clone(pb.IncludeOnly), true
	}
	out.IncludeOnly, out.Exclude = sortedUnique(out.IncludeOnly), sortedUnique(out.Exclude)
	return EnvironmentPolicy{Profile: &out}
}

// envFilterOf reads an environment policy as a profile's filter.
func envFilterOf(e EnvironmentPolicy) CompiledEnvironment {
	if e.Profile != nil {
		c := *e.Profile
		if c.Inherit == "" {
			c.Inherit = InheritAll
		}
		return c
	}
	// A plain policy's denied patterns match anywhere in a name
	// (EnvAllowed: PASSWORD denies PGPASSWORD); a profile's exclude
	// patterns are globs of whole names, so each is read as one that
	// holds it (review 165).
	c := CompiledEnvironment{Inherit: InheritAll}
	for _, p := range e.DeniedPatterns {
		c.Exclude = append(c.Exclude, "*"+escapeGlob(p)+"*")
	}
	if !e.Inherit {
		c.IncludeOnly, c.IncludeOnlySet = slices.Clone(e.AllowedVars), true
	}
	return c
}

// stricterInherit is the one of two profile inherit settings that passes
// less: none, then core, then all.
func stricterInherit(a, b string) string {
	rank := map[string]int{InheritNone: 0, InheritCore: 1, InheritAll: 2, "": 2}
	if rank[a] <= rank[b] {
		return a
	}
	return b
}

func minPositive(a, b int64) int64 {
	switch {
	case a <= 0:
		return max(b, 0)
	case b <= 0:
		return a
	}
	return min(a, b)
}

// ExceedsParent names the dimensions in which cap would allow something the
// parent does not. Lists that only take away (denied tools, commands,
// domains, patterns) never make a cap broader: omitting them adds nothing.
func ExceedsParent(cap Bounds, set capDims, parent Bounds) []string {
	dims, _ := exceedsParent(cap, set, parent)
	return dims
}

// exceedsParent is ExceedsParent with the policy fields that exceed. A cap
// without a mode is not compared on the mode (it keeps the parent's); a cap
// without a policy not on the policy (its mode's table bounds the child).
func exceedsParent(cap Bounds, set capDims, parent Bounds) (dims, fields []string) {
	if set.mode && cap.Mode.rank() < parent.Mode.rank() {
		dims = append(dims, "profile")
	}
	if set.policy {
		if fields = policyBroaderFields(cap.Policy, parent.Policy); len(fields) > 0 && !slices.Contains(dims, "profile") {
			dims = append(dims, "profile")
		}
	}
	if set.sandbox && cap.SandboxMode.rank() < parent.SandboxMode.rank() {
		dims = append(dims, "sandbox mode")
	}
	if set.network && networkBroader(cap.Network, parent.Network) {
		dims = append(dims, "network policy")
	}
	if set.process && processBroader(cap.Process, parent.Process) {
		dims = append(dims, "process policy")
	}
	if set.filesystem && filesystemBroader(cap.Filesystem, parent.Filesystem) {
		dims = append(dims, "filesystem roots")
	}
	return dims, fields
}

// policyBroaderFields names (as task_cap.policy.<field>) each field in which
// policy c allows something p does not.
func policyBroaderFields(c, p ToolPermissionPolicySnapshot) []string {
	var out []string
	cf, pf := c.behaviorFields(), p.behaviorFields()
	for i := range cf {
		if *cf[i].ptr > *pf[i].ptr {
			out = append(out, "task_cap.policy."+cf[i].name)
		}
	}
	if listBroader(c.AllowedTools, c.AllowedToolsRestricted, p.AllowedTools, p.AllowedToolsRestricted, func(x, y string) bool { return x == y }) {
		out = append(out, "task_cap.policy.allowed_tools")
	}
	if listBroader(c.AllowedPaths, c.AllowedPathsRestricted, p.AllowedPaths, p.AllowedPathsRestricted, PathWithin) {
		out = append(out, "task_cap.policy.allowed_paths")
	}
	return out
}

// listBroader reports whether allow-list c admits an item that allow-list p
// does not; within(x, y) says item x is admitted by entry y.
func listBroader(c []string, cr bool, p []string, pr bool, within func(x, y string) bool) bool {
	cr, pr = cr || len(c) > 0, pr || len(p) > 0
	if !pr {
		return false
	}
	if !cr {
		return true
	}
	for _, x := range c {
		if !slices.ContainsFunc(p, func(y string) bool { return within(x, y) }) {
			return true
		}
	}
	return false
}

func processBroader(c, p ProcessPolicy) bool {
	if (c.ShellEnabled && !p.ShellEnabled) || (c.InheritStdin && !p.InheritStdin) || (c.InheritSession && !p.InheritSession) ||
		(c.Environment.Inherit && !p.Environment.Inherit) || c.MaxDurationMs > p.MaxDurationMs {
		return true
	}
	if !c.Environment.Inherit {
		for _, v := range c.Environment.AllowedVars {
			if !p.Environment.EnvAllowed(v) && !slices.Contains(p.Environment.AllowedVars, v) {
				return true
			}
		}
	}
	return c.ShellEnabled && listBroader(c.AllowedCommandFamilies, false, p.AllowedCommandFamilies, false, func(x, y string) bool { return x == y })
}

// capDims records which dimensions a cap sets.
type capDims struct{ mode, policy, sandbox, network, process, filesystem bool }

// capBounds turns a cap into bounds (absent dimensions are unbounded).
func capBounds(c *TaskCap) (Bounds, capDims, error) {
	b, set := Unbounded(), capDims{}
	if c.Mode != "" {
		if _, err := ParseMode(string(c.Mode)); err != nil {
			return b, set, err.(*InvalidEnumError).WithField("task_cap.mode")
		}
		b.Mode, b.Policy, set.mode = c.Mode, CompilePolicy(c.Mode), true
	}
	if c.Policy != nil {
		p := *c.Policy
		p.normalizeLists()
		if c.Mode != "" {
			// A policy may narrow its cap's mode, never widen it: a
			// widening would otherwise be silently ignored.
			if f := policyBroaderFields(p, b.Policy); len(f) > 0 {
				return b, set, &FieldError{Field: f[0], Message: "is broader than the cap's mode " + string(c.Mode) + " allows"}
			}
		}
		b.Policy, set.policy = IntersectPolicy(b.Policy, p), true
	}
	if c.SandboxMode != "" {
		b.SandboxMode, set.sandbox = c.SandboxMode, true
	}
	if c.Network != nil {
		b.Network, set.network = *c.Network, true
		// A cap that disables the network disables it for good: no
		// approval in the child can enable it (network_disabled).
		b.Network.Locked = b.Network.Mode == NetworkDisabled
		if err := checkNetRules(&b.Network, "task_cap.network"); err != nil {
			return b, set, err
		}
	}
	if c.Process != nil {
		p := *c.Process
		if p.MaxDurationMs <= 0 || p.MaxDurationMs > MaxCommandDurationMs {
			p.MaxDurationMs = MaxCommandDurationMs
		}
		if p.DefaultTimeoutMs <= 0 || p.DefaultTimeoutMs > p.MaxDurationMs {
			p.DefaultTimeoutMs = min(DefaultCommandTimeoutMs, p.MaxDurationMs)
		}
		b.Process, set.process = p, true
	}
	if len(c.FilesystemRoots) > 0 {
		var es []FilesystemEntry
		for i, r := range c.FilesystemRoots {
			if err := checkAbs(fmt.Sprintf("task_cap.filesystem_roots[%d].path", i), r.Path); err != nil {
				return b, set, err
			}
			if r.Access == "" {
				r.Access = AccessRead
			}
			es = append(es, FilesystemEntry{Kind: PathExplicit, Path: r.Path, Access: r.Access, Provenance: ProvenanceTaskCap, ResolvedPath: CleanPath(r.Path)})
		}
		b.Filesystem, set.filesystem = normalizeEntries(FilesystemPolicy{Entries: es}), true
		if !slices.ContainsFunc(es, func(e FilesystemEntry) bool { return e.Access != AccessDeny }) {
			// Only deny entries: the cap bounds no roots, it takes away.
			b.Filesystem.Unrestricted, set.filesystem = true, false
		}
	}
	return b, set, nil
}

package domain

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// ChildInputs is what a child turn's snapshot is resolved from.
type ChildInputs struct {
	// Requested is the child's own profile request; nil inherits the parent's mode.
	Requested *ProfileRequest
	// Cap bounds the child; nil means the parent alone bounds it.
	Cap          *TaskCap
	Parent       *TurnExecutionSecuritySnapshot
	ParentTurnID string
	// Inputs are the child's cwd, roots and backend. Empty fields take the
	// parent's; Inputs.Profile is ignored.
	Inputs SnapshotInputs
	// Started says the child exists: its cap was checked against the
	// parent when it started, and a parent narrowed since bounds it (cap ∩
	// parent) rather than refusing every later change of the child.
	Started bool
}

// ResolveChildSnapshot resolves a child turn's snapshot as requested ∩ task
// cap ∩ parent (REFERENCE §6). A cap broader than the parent is refused with
// a *CapExceedsParentError.
func ResolveChildSnapshot(in ChildInputs) (TurnExecutionSecuritySnapshot, error) {
	parent := BoundsOf(in.Parent)
	capB, set := Unbounded(), capDims{}
	if in.Cap != nil {
		var err error
		if capB, set, err = capBounds(in.Cap); err != nil {
			return TurnExecutionSecuritySnapshot{}, err
		}
		if dims, fields := exceedsParent(capB, set, parent); len(dims) > 0 && !in.Started {
			return TurnExecutionSecuritySnapshot{}, &CapExceedsParentError{Dimensions: dims, Fields: fields}
		}
	}
	si := in.Inputs
	if si.Cwd == "" {
		si.Cwd = in.Parent.Sandbox.Cwd
	}
	if si.WorkspaceRoot == "" {
		si.WorkspaceRoot = workspaceRootOf(in.Parent)
	}
	switch pb := in.Parent.Backend.ExecutionBackend; {
	case si.ExecutionBackend == "":
		si.ExecutionBackend = pb
	case pb != "" && si.ExecutionBackend != pb:
		// A child runs where its parent's calls run: a CLI runtime's
		// child is that runtime's, and a child the agent starts as
		// "native" under a Claude Code turn took the session's Bash out
		// of command_unconfined (the eighty-fourth review).
		return TurnExecutionSecuritySnapshot{}, &FieldError{Field: "execution_backend",
			Message: fmt.Sprintf("a child turn runs under its parent's execution backend, %s, not %s", pb, si.ExecutionBackend)}
	}
	if si.Kernel == (KernelFeatures{}) && in.Parent.Backend.Kernel != nil {
		si.Kernel = *in.Parent.Backend.Kernel
	}
	source := SourceInheritedFromParentTurn
	if in.Cap != nil {
		source = SourceTaskPermissionCap
	}
	// The child's mode is the strictest of what it asks, its cap and its
	// parent; its snapshot is resolved for that mode, then bounded.
	req := ProfileRequest{Mode: in.Parent.PermissionProfile.Mode}
	if in.Requested != nil {
		req = *in.Requested
		req.Mode = StricterMode(cmp.Or(req.Mode, in.Parent.PermissionProfile.Mode), in.Parent.PermissionProfile.Mode)
	}
	if in.Cap != nil && in.Cap.Mode != "" {
		req.Mode = StricterMode(req.Mode, in.Cap.Mode)
	}
	si.Profile = ResolveProfile(&req, source)
	child, err := ResolveSnapshot(si)
	if err != nil {
		return TurnExecutionSecuritySnapshot{}, err
	}
	extras := append(profileExtras(&child), profileExtras(in.Parent)...)
	b := Intersect(Intersect(BoundsOf(&child), capB), parent)
	child.PermissionProfile = TurnPermissionProfileSnapshot{Mode: b.Mode, Source: source, EffectivePolicy: b.Policy}
	child.Sandbox.Mode, child.Sandbox.Filesystem = b.SandboxMode, withSensitive(b.Filesystem, in.Parent, si.SensitivePaths)
	// A parent's profile rules (globs, locked operator denies) bind the
	// child too: decisions take the narrower of them and the child's roots.
	child.Sandbox.Filesystem.Rules = slices.Clone(in.Parent.Sandbox.Filesystem.Rules) // rewritten in place below (BindRootLinks, BindCarveLinks): never the parent's
	// The child's roots as its snapshot resolved them (a relative root
	// is the cwd's: the hundred-and-sixteenth review's "sub" was read as
	// "/sub", in no root of the parent, and bound where a link led).
	var roots []string
	for _, e := range child.Sandbox.Filesystem.Entries {
		switch e.Kind {
		case PathWorkspaceRoot, PathProjectRoot, PathAppReadRoot:
			roots = append(roots, e.ResolvedPath)
		}
	}
	links := maps.Clone(si.RootLinks)
	if links == nil {
		links = map[string]string{}
	}
	// Where the parent's roots led binds the child's within them, over any
	// link the child's own start found (older: the child holds no more).
	maps.Copy(links, BoundWithin(RootLinksOf(in.Parent), roots...))
	BindRootLinks(&child, links)
	capLinkedRoots(&child.Sandbox.Filesystem, in.Parent.Sandbox.Filesystem)
	child.Sandbox.Tmp, child.Sandbox.BackendRequirement = b.Tmp, b.Requirement
	child.Network, child.Process = b.Network, b.Process
	child.Backend.RuntimeMapping = MapToRuntime(child.Backend.ExecutionBackend, b.Mode)
	child.ParentCap = &ParentCap{ParentTurnID: in.ParentTurnID, ParentMode: in.Parent.PermissionProfile.Mode, TaskCap: in.Cap}
	child.Enforcement = derivedEnforcement(&child, extras)
	return child, nil
}

func workspaceRootOf(s *TurnExecutionSecuritySnapshot) string {
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.Kind == PathWorkspaceRoot {
			return e.ResolvedPath
		}
	}
	return s.Sandbox.Cwd
}

func normNetwork(n NetworkPolicy) NetworkPolicy {
	n.AllowedDomains, n.DeniedDomains = sortedUnique(n.AllowedDomains), sortedUnique(n.DeniedDomains)
	if n.Mode != NetworkRestricted {
		n.AllowedDomains = nil
	}
	return n
}

func normProcess(p ProcessPolicy) ProcessPolicy {
	p.DeniedCommands, p.AllowedCommandFamilies = sortedUnique(p.DeniedCommands), sortedUnique(p.AllowedCommandFamilies)
	p.Environment.AllowedVars, p.Environment.DeniedPatterns = sortedUnique(p.Environment.AllowedVars), sortedUnique(p.Environment.DeniedPatterns)
	if p.Environment.Inherit {
		p.Environment.AllowedVars = nil
	}
	if !p.ShellEnabled { // nothing runs: the command lists no longer matter
		p.DeniedCommands, p.AllowedCommandFamilies = nil, nil
	}
	return p
}

// withSensitive keeps a restricted child's sensitive paths: the built-in
// list with the child's extra paths, and every sensitive entry of its
// parent (intersecting roots does not carry deny entries over).
func withSensitive(fs FilesystemPolicy, parent *TurnExecutionSecuritySnapshot, extra []string) FilesystemPolicy {
	if fs.Unrestricted {
		return fs
	}
	es := append(slices.Clone(fs.Entries), SensitiveEntries(extra...)...)
	for _, e := range parent.Sandbox.Filesystem.Entries {
		if e.Kind == PathSensitive {
			es = append(es, e)
		}
	}
	out := normalizeEntries(FilesystemPolicy{Unrestricted: fs.Unrestricted, Entries: es})
	out.Rules, out.GlobScanMaxDepth = fs.Rules, max(fs.GlobScanMaxDepth, parent.Sandbox.Filesystem.GlobScanMaxDepth)
	return out
}

// NarrowToParent is a child turn's snapshot bounded again by its parent's
// current one: child ∩ parent, as ResolveChildSnapshot bounds a new child,
// so that narrowing a parent narrows the turns it delegated to (REFERENCE
// §10: delegated turns keep the updated permissions). It never widens the
// child: a parent that widened leaves it as it is.
func NarrowToParent(child, parent *TurnExecutionSecuritySnapshot, parentTurnID string) TurnExecutionSecuritySnapshot {
	b := Intersect(BoundsOf(child), BoundsOf(parent))
	out := *child
	out.PermissionProfile = TurnPermissionProfileSnapshot{Mode: b.Mode, Profile: child.PermissionProfile.Profile,
		Source: child.PermissionProfile.Source, EffectivePolicy: b.Policy}
	out.Sandbox.Mode = b.SandboxMode
	out.Sandbox.Filesystem = withSensitive(withSensitive(b.Filesystem, parent, nil), child, nil)
	capLinkedRoots(&out.Sandbox.Filesystem, parent.Sandbox.Filesystem)
	out.Sandbox.Filesystem.Rules = mergedRules(child.Sandbox.Filesystem.Rules, parent.Sandbox.Filesystem.Rules)
	out.Sandbox.Tmp, out.Sandbox.BackendRequirement = b.Tmp, b.Requirement
	out.Network, out.Process = b.Network, b.Process
	out.Backend.RuntimeMapping = MapToRuntime(out.Backend.ExecutionBackend, b.Mode)
	if child.ParentCap != nil {
		pc := *child.ParentCap
		pc.ParentTurnID, pc.ParentMode = parentTurnID, parent.PermissionProfile.Mode
		out.ParentCap = &pc
	}
	out.Enforcement = derivedEnforcement(&out, append(profileExtras(child), profileExtras(parent)...))
	return out
}

// profileExtras are the degradations of s that ComputeEnforcement does not
// derive from its policies: a profile's, what the kernel cannot hold of it
// (a network only the egress proxy could limit, a unix-socket allow-list,
// glob denies, a gap between the rules and the entries). A snapshot made
// from s keeps them: recomputed from its policies alone, a child of a turn
// whose commands are refused would run them with its network open.
func profileExtras(s *TurnExecutionSecuritySnapshot) []Degradation {
	base := ComputeEnforcement(s).Degradations
	var out []Degradation
	for _, d := range s.Enforcement.Degradations {
		if !slices.Contains(base, d) {
			out = append(out, d)
		}
	}
	return out
}

// derivedEnforcement is s's enforcement with the degradations of the
// snapshots it was made from (extras) and the gaps of its own rules and
// entries.
func derivedEnforcement(s *TurnExecutionSecuritySnapshot, extras []Degradation) Enforcement {
	e := ComputeEnforcement(s)
	var add []Degradation
	for _, d := range append(extras, kernelGaps(&s.Sandbox.Filesystem)...) {
		if !slices.Contains(e.Degradations, d) && !slices.Contains(add, d) {
			add = append(add, d)
		}
	}
	return withDegradations(s, e, add)
}

// mergedRules is a's rules followed by those of b that a lacks: the rules
// of both bind (decisions take the narrower).
func mergedRules(a, b []PathRule) []PathRule {
	out := slices.Clone(a)
	for _, r := range b {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// capLinkedRoots caps each root of the child's fs that leads elsewhere
// than it is written (its LedTo) by what the parent grants where it leads,
// and keeps the parent's carve-outs there: the intersection paired the
// roots by their written paths, so a child rooted at repo/lv -> .vscode
// under a parent bound nowhere (no led_to) wrote the .vscode its parent
// keeps read-only (the hundred-and-sixty-ninth review). A parent bound
// where its roots led binds the child's at their written paths
// (BoundWithin), and the kernel grants nothing through such a link.
func capLinkedRoots(fs *FilesystemPolicy, parent FilesystemPolicy) {
	led := parent
	led.Entries = slices.Clone(parent.Entries)
	for i, e := range led.Entries {
		if !e.IsCarve() && e.LedTo != "" {
			led.Entries[i].ResolvedPath = e.LedTo
		}
	}
	moved := false
	var es []FilesystemEntry
	for _, e := range fs.Entries {
		if !e.IsCarve() && e.LedTo != "" && e.LedTo != e.ResolvedPath {
			moved = true
			if e.Access = weakerAccess(e.Access, AccessAt(&led, e.LedTo)); e.Access == AccessDeny {
				continue // the parent grants nothing where it leads
			}
		}
		es = append(es, e)
	}
	if !moved {
		return
	}
	_, carves := splitProtected(parent)
	fs.Entries = normalizeEntries(FilesystemPolicy{Unrestricted: fs.Unrestricted, Entries: append(es, carves...)}).Entries
}

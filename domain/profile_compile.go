package domain

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// ProfileEnv is what a profile's special tokens and "~" resolve against:
// the turn's roots and the environment the server runs commands in. All
// paths are absolute.
type ProfileEnv struct {
	Home          string   `json:"home,omitempty"`
	Cwd           string   `json:"cwd"`
	WorkspaceRoot string   `json:"workspace_root,omitempty"`
	ProjectRoots  []string `json:"project_roots,omitempty"`
	AppReadRoots  []string `json:"app_read_roots,omitempty"`
	TmpDir        string   `json:"tmpdir,omitempty"`
	// RootLinks: SnapshotInputs.RootLinks.
	RootLinks map[string]string `json:"-"`
}

// Constraints are the operator's limits on profile selection (REFERENCE
// §10): the allowed profile names (nil = any) and filesystem keys every
// compiled profile must deny. A required deny is locked: no rule of the
// profile, however specific, reopens anything under it.
type Constraints struct {
	AllowedProfiles []string `json:"allowed_profiles,omitempty"`
	RequiredDeny    []string `json:"required_deny,omitempty"`
	// AllowedRoots bounds the roots a turn's starter names (its workspace
	// root, project roots, app read roots and cwd): each must lie inside
	// one of these (absolute or "~/" paths; nil = anywhere). A mode's
	// confinement is relative to the roots, so without them an allowed
	// mode could be rooted at "/".
	AllowedRoots []string `json:"allowed_roots,omitempty"`
	// resolvedRoots are AllowedRoots with "~" read and their symlinks
	// resolved by the server that loaded them (SetResolvedRoots); unset,
	// AllowedRoots as written.
	resolvedRoots []string
}

// SetResolvedRoots records AllowedRoots (in order) as the server resolved
// them, their symlinks followed: a root is taken by the sandbox where its
// links lead, so it is bound by where the allowed roots lead.
func (c *Constraints) SetResolvedRoots(rs []string) { c.resolvedRoots = slices.Clone(rs) }

// ConstraintError refuses a selection outside the operator's list.
type ConstraintError struct {
	Profile string
	Allowed []string
}

func (e *ConstraintError) Error() string {
	return fmt.Sprintf("profile %q is not allowed by the operator's constraints (allowed_profiles: %s)", e.Profile, strings.Join(e.Allowed, ", "))
}

// Validate checks the constraints on their own.
func (c *Constraints) Validate() []error {
	var errs []error
	for _, k := range c.RequiredDeny {
		if _, err := ParseFilesystemKey(k, AccessDeny); err != nil {
			errs = append(errs, fmt.Errorf("required_deny %q: %w", k, err))
		}
	}
	for _, n := range c.AllowedProfiles {
		if strings.TrimSpace(n) == "" {
			errs = append(errs, fmt.Errorf("allowed_profiles: an empty name"))
		}
	}
	for _, r := range c.AllowedRoots {
		if !(strings.HasPrefix(r, "/") || r == "~" || strings.HasPrefix(r, "~/")) || strings.ContainsAny(r, "*?[") {
			errs = append(errs, fmt.Errorf("allowed_roots %q: an absolute or ~/ path, without glob characters", r))
		}
	}
	return errs
}

// allowedRoots returns AllowedRoots as clean absolute paths, "~" read as
// home.
func (c *Constraints) allowedRoots(home string) []string {
	out := make([]string, 0, len(c.AllowedRoots))
	for _, r := range c.AllowedRoots {
		if r == "~" || strings.HasPrefix(r, "~/") {
			r = home + r[1:]
		}
		out = append(out, CleanPath(r))
	}
	return out
}

// RootAllowed reports whether the clean absolute path p lies inside one of
// AllowedRoots (every path, when there are none).
func (c *Constraints) RootAllowed(p, home string) bool {
	if c == nil || c.AllowedRoots == nil {
		return true
	}
	return c.rootWithin(p, home) != ""
}

// rootWithin returns the resolved allowed root p lies in, as written or as
// resolved, or "".
func (c *Constraints) rootWithin(p, home string) string {
	lex := c.allowedRoots(home)
	for i, r := range lex {
		res := r
		if i < len(c.resolvedRoots) {
			res = CleanPath(c.resolvedRoots[i])
		}
		if PathWithin(p, r) || PathWithin(p, res) {
			return res
		}
	}
	return ""
}

// floorOf returns the allowed root p lies in, as written or as resolved
// (the one p is written under), the outermost where several hold it, or "".
func (c *Constraints) floorOf(p, home string) string {
	out := ""
	lex := c.allowedRoots(home)
	for i, r := range lex {
		res := r
		if i < len(c.resolvedRoots) {
			res = CleanPath(c.resolvedRoots[i])
		}
		for _, a := range []string{r, res} {
			if PathWithin(p, a) && (out == "" || len(a) < len(out)) {
				out = a
			}
		}
	}
	return out
}

// BindRoots sets Within on each root of the snapshot (of the workspace, a
// project or an app's reads: a profile's workspace_roots too), the allowed
// root it lies in, so that the sandbox grants it only where it led at the
// start; a root in none of AllowedRoots refuses the snapshot.
//
// The protected list (list; nil for none) then holds at each directory
// between a writable root and its allowed root too (aboveRootEntries).
func (c *Constraints) BindRoots(s *TurnExecutionSecuritySnapshot, home string, list []ProtectedPath) error {
	if c == nil || c.AllowedRoots == nil {
		return nil
	}
	es := s.Sandbox.Filesystem.Entries
	for i := range es {
		switch es[i].Kind {
		case PathWorkspaceRoot, PathProjectRoot, PathAppReadRoot:
			p := CleanPath(cmp.Or(es[i].ResolvedPath, es[i].Path))
			// The allowed root it led into, where it led at the start
			// (led_to): the sandbox grants it only while its canonical
			// path lies there, and a link from one allowed root into
			// another was never granted (the fifty-third review).
			es[i].Within = c.rootWithin(cmp.Or(es[i].LedTo, p), home)
			if es[i].Within == "" && es[i].Access != AccessDeny {
				return &FieldError{Field: "permission_profile", Value: p,
					Message: fmt.Sprintf("grants the root %s, outside the roots the operator's constraints allow (allowed_roots: %s)", p, strings.Join(c.AllowedRoots, ", "))}
			}
		}
	}
	fs := &s.Sandbox.Filesystem
	if fs.Unrestricted || list == nil {
		return nil
	}
	var above []FilesystemEntry
	seen := map[string]bool{}
	for _, e := range es {
		if e.Access == AccessWrite && (e.Kind == PathWorkspaceRoot || e.Kind == PathProjectRoot) {
			above = append(above, aboveRootEntries(list, e, seen)...)
		}
	}
	if len(above) > 0 {
		fs.Entries = normalizeEntries(FilesystemPolicy{Entries: append(es, above...)}).Entries
	}
	return nil
}

// BindRootLinks sets LedTo on each root entry of the snapshot that links
// names (where each root led when the turn started: SnapshotInputs.RootLinks).
// A profile's rules inside a root that led elsewhere than it is written
// are written where it led: decisions follow a rule's links when they
// resolve it, and a link the agent points elsewhere later would take the
// root's rules with it (into a directory a glob denies, more specific
// there than the glob: the fifty-second review).
func BindRootLinks(s *TurnExecutionSecuritySnapshot, links map[string]string) {
	if links == nil {
		return
	}
	es := s.Sandbox.Filesystem.Entries
	moved := map[string]string{}
	for i := range es {
		switch es[i].Kind {
		case PathWorkspaceRoot, PathProjectRoot, PathAppReadRoot:
			p := CleanPath(cmp.Or(es[i].ResolvedPath, es[i].Path))
			if l, ok := links[p]; ok {
				es[i].LedTo = CleanPath(l)
				if es[i].LedTo != p {
					moved[p] = es[i].LedTo
				}
			}
		}
	}
	if len(moved) == 0 {
		return
	}
	// where returns p written where the innermost moved root holding it
	// led, or "" when none holds it: p's own ancestors are looked up, one
	// lookup each, not every root for every rule and entry.
	where := func(p string) string {
		for r := p; ; r = path.Dir(r) {
			if to, ok := moved[r]; ok {
				return CleanPath(to + "/" + strings.TrimPrefix(p, r))
			}
			if r == "/" || r == "." {
				return ""
			}
		}
	}
	rs := s.Sandbox.Filesystem.Rules
	for i := range rs {
		if w := where(rs[i].Pattern); w != "" {
			rs[i].Pattern = w
		}
	}
	// The entries inside such a root are resolved where it led too: the
	// sandbox takes a profile's write or overlay path reached through a
	// link as read-only (the thirty-first review), and a workspace reached
	// through a linked home (/home -> var/home) lost its own reopened
	// build/out that way (the fifty-second review).
	for i := range es {
		switch es[i].Kind {
		case PathWorkspaceRoot, PathProjectRoot, PathAppReadRoot:
			continue
		}
		if w := where(CleanPath(cmp.Or(es[i].ResolvedPath, es[i].Path))); w != "" {
			es[i].ResolvedPath = w
		}
	}
}

// RootLinksOf returns where the snapshot's roots led when its turn started
// (their LedTo), for a snapshot selected again in the turn.
func RootLinksOf(s *TurnExecutionSecuritySnapshot) map[string]string {
	var out map[string]string
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.LedTo != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[CleanPath(cmp.Or(e.ResolvedPath, e.Path))] = e.LedTo
		}
	}
	return out
}

// BoundWithin returns links with each of roots that lies in a root links
// binds (itself or a directory inside it) bound where that root led: a
// child turn's root, or one a turn is narrowed to, inherits its enclosing
// root's binding, which is older than any link it has now (the
// hundred-and-fourteenth review: a child with no roots of its own was
// bound nowhere, and after its parent's root was swapped for a link its
// writes went where the link led).
func BoundWithin(links map[string]string, roots ...string) map[string]string {
	out := maps.Clone(links)
	for _, r := range roots {
		if r == "" {
			continue
		}
		r = CleanPath(r)
		for a := r; ; a = path.Dir(a) {
			if to, ok := links[a]; ok {
				if out == nil {
					out = map[string]string{}
				}
				out[r] = CleanPath(to + "/" + strings.TrimPrefix(r, a))
				break
			}
			if a == "/" || a == "." {
				break
			}
		}
	}
	return out
}

// RootsNamed returns the roots a turn's inputs name, each with the request
// field that names it: the workspace root (the cwd when there is none), the
// project and app read roots, and the cwd; as written (raw) and made
// absolute as the snapshot takes them (a relative one joined to the cwd, or
// the cwd to the workspace root: resolveRoots). It fails as resolveRoots
// does.
func RootsNamed(in *SnapshotInputs) (fields, raw, abs []string, err error) {
	r := *in
	if err := resolveRoots(&r); err != nil {
		return nil, nil, nil, err
	}
	add := func(field, p, a string) {
		if p != "" {
			fields, raw, abs = append(fields, field), append(raw, p), append(abs, CleanPath(a))
		}
	}
	add("workspace_root", cmp.Or(in.WorkspaceRoot, in.Cwd), r.WorkspaceRoot)
	for i, p := range in.ProjectRoots {
		add(fmt.Sprintf("project_roots[%d]", i), p, r.ProjectRoots[i])
	}
	for i, p := range in.AppReadRoots {
		add(fmt.Sprintf("app_read_roots[%d]", i), p, r.AppReadRoots[i])
	}
	add("cwd", in.Cwd, r.Cwd)
	return fields, raw, abs, nil
}

// ProfileAddedRoots returns the roots the profile req names adds to a
// turn's (its workspace_roots table, "~" expanded with home), clean and
// absolute; none for a mode, an unknown profile or a profile that cannot
// be flattened (the selection refuses those). The server resolves where
// they lead too (engine.checkRoots), as it does the roots the runtime
// names: capRoots judges a root below one of them where it leads (the
// hundred-and-eighty-first review: a profile's ~/code -> /data/code
// beside a project root named under /data/code capped nothing).
func ProfileAddedRoots(req *ProfileRequest, cat *ProfileCatalog) []string {
	if req == nil || req.Profile == "" || cat == nil {
		return nil
	}
	chain, err := cat.Profiles.chain(req.Profile)
	if err != nil {
		return nil
	}
	flat, _ := flatten(chain)
	var warnings []string
	return workspaceRoots(ProfileEnv{Home: cat.Home}, flat.WorkspaceRoots, &warnings)
}

// CheckRoots refuses a turn whose inputs name a root outside AllowedRoots,
// as the snapshot takes it (the server checks them again with their
// symlinks resolved).
func (c *Constraints) CheckRoots(in *SnapshotInputs, home string) error {
	if c == nil || c.AllowedRoots == nil {
		return nil
	}
	fields, raw, abs, err := RootsNamed(in)
	if err != nil {
		return err
	}
	for i, p := range abs {
		if !c.RootAllowed(p, home) {
			return c.RootError(fields[i], raw[i], "")
		}
	}
	return nil
}

// RootError is the refusal of a root outside AllowedRoots (resolved, when
// not "", is where its symlinks lead).
func (c *Constraints) RootError(field, p, resolved string) error {
	msg := fmt.Sprintf("is outside the roots the operator's constraints allow (allowed_roots: %s)", strings.Join(c.AllowedRoots, ", "))
	if resolved != "" {
		msg = fmt.Sprintf("resolves to %s, outside the roots the operator's constraints allow (allowed_roots: %s)", resolved, strings.Join(c.AllowedRoots, ", "))
	}
	return &FieldError{Field: field, Value: p, Message: msg}
}

// CheckSelection refuses a profile name outside AllowedProfiles.
func (c *Constraints) CheckSelection(name string) error {
	if c == nil || c.AllowedProfiles == nil || slices.Contains(c.AllowedProfiles, name) {
		return nil
	}
	return &ConstraintError{Profile: name, Allowed: slices.Clone(c.AllowedProfiles)}
}

// CompiledEnvironment is a profile's environment filter, resolved.
type CompiledEnvironment struct {
	Inherit     string            `json:"inherit"`
	Exclude     []string          `json:"exclude"`
	Set         map[string]string `json:"set,omitempty"`
	IncludeOnly []string          `json:"include_only,omitempty"`
	// IncludeOnlySet distinguishes include_only = [] (keep nothing) from unset.
	IncludeOnlySet bool `json:"include_only_set,omitempty"`
}

// Apply filters environ ("NAME=value"): inherit (all, the core allow-list,
// or none), drop names matching an exclude pattern (case-insensitive glob),
// add Set, keep only names matching IncludeOnly when it is set. Names that
// are never inherited (SSH_AUTH_SOCK) are dropped first.
func (e *CompiledEnvironment) Apply(environ []string) []string {
	core := EnvironmentPolicy{AllowedVars: RestrictedEnvAllowList}
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || slices.Contains(alwaysDroppedEnv, name) {
			continue
		}
		switch e.Inherit {
		case InheritAll:
		case InheritCore:
			if !core.EnvAllowed(name) {
				continue
			}
		default:
			continue
		}
		if envMatchAny(e.Exclude, name) {
			continue
		}
		if _, overridden := e.Set[name]; overridden {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(e.Set)) {
		out = append(out, k+"="+e.Set[k])
	}
	if e.IncludeOnlySet {
		kept := out[:0]
		for _, kv := range out {
			name, _, _ := strings.Cut(kv, "=")
			if envMatchAny(e.IncludeOnly, name) {
				kept = append(kept, kv)
			}
		}
		out = kept
	}
	return out
}

func envMatchAny(patterns []string, name string) bool {
	up := strings.ToUpper(name)
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToUpper(p), up); ok {
			return true
		}
	}
	return false
}

// CompiledProcess is a profile's process limits, resolved.
type CompiledProcess struct {
	TimeoutCapMs   int64    `json:"timeout_cap_ms"`
	DeniedCommands []string `json:"denied_commands,omitempty"`
}

// CompiledProfile is a profile resolved for one turn: its rules are
// absolute, its settings flattened over the extends chain.
type CompiledProfile struct {
	Name string `json:"name"`
	// Chain is the extends chain, the profile first.
	Chain []string `json:"chain"`
	// Unrestricted is set when the filesystem is exactly ":root" = write
	// with no operator rule: the sandbox then confines nothing.
	Unrestricted     bool                `json:"unrestricted"`
	Rules            []PathRule          `json:"rules"`
	WorkspaceRoots   []string            `json:"workspace_roots"`
	GlobScanMaxDepth int                 `json:"glob_scan_max_depth"`
	Cwd              string              `json:"cwd"`
	Network          CompiledNetwork     `json:"network"`
	Environment      CompiledEnvironment `json:"environment"`
	Process          CompiledProcess     `json:"process"`
	// Policy is the behaviour table: the approvals.policy mode's, with the
	// auto-rejected categories' "ask" turned into "deny".
	BasePolicy Mode                         `json:"base_policy"`
	AutoReject []ActionKind                 `json:"auto_reject,omitempty"`
	Policy     ToolPermissionPolicySnapshot `json:"policy"`
	// Warnings name what was ignored (unknown tokens, a "~" key with no home).
	Warnings []string `json:"warnings,omitempty"`
}

// CompileProfile resolves the profile called name from set against env,
// under the operator's constraints (nil = none). It refuses a selection
// outside the allowed list, an unknown profile, a bad extends chain and an
// invalid profile anywhere in the chain.
func CompileProfile(set ProfileSet, name string, env ProfileEnv, cons *Constraints) (*CompiledProfile, error) {
	if err := cons.CheckSelection(name); err != nil {
		return nil, err
	}
	chain, err := set.chain(name)
	if err != nil {
		return nil, err
	}
	for _, p := range chain {
		if errs := p.validate(); len(errs) > 0 {
			return nil, errs[0]
		}
	}
	if cons != nil {
		if errs := cons.Validate(); len(errs) > 0 {
			return nil, errs[0]
		}
	}
	if env.WorkspaceRoot == "" {
		env.WorkspaceRoot = env.Cwd
	}
	if env.Cwd == "" {
		env.Cwd = env.WorkspaceRoot
	}
	if !strings.HasPrefix(env.Cwd, "/") {
		return nil, &FieldError{Field: "cwd", Value: env.Cwd, Message: "must be an absolute path"}
	}
	flat, origin := flatten(chain)
	c := &CompiledProfile{Name: name, Cwd: CleanPath(env.Cwd)}
	for _, p := range chain {
		c.Chain = append(c.Chain, p.Name)
	}
	c.WorkspaceRoots = workspaceRoots(env, flat.WorkspaceRoots, &c.Warnings)
	c.Unrestricted = len(flat.Filesystem) == 1 && flat.Filesystem[TokenRoot] == AccessWrite && (cons == nil || len(cons.RequiredDeny) == 0)
	var rootKeys []PathRule // the root tokens' keys, unexpanded (capRoots)
	for _, k := range slices.Sorted(maps.Keys(flat.Filesystem)) {
		fk, _ := ParseFilesystemKey(k, flat.Filesystem[k])
		prov := RuleFromProfile
		if strings.HasPrefix(origin[k], ":") {
			prov = RuleFromBuiltin
		}
		a := flat.Filesystem[k]
		if slices.Contains(rootTokens, fk.Token) {
			rk := PathRule{Key: fk.Key, Glob: fk.Glob, Access: a, Provenance: prov, Origin: origin[k]}
			if a == AccessOverlay {
				rk.Access, rk.Overlay = AccessRead, true
			}
			rootKeys = append(rootKeys, rk)
		}
		if a != AccessOverlay {
			c.Rules = append(c.Rules, expandKey(fk, a, prov, origin[k], env, c.WorkspaceRoots, &c.Warnings)...)
			continue
		}
		rs := expandKey(fk, AccessRead, prov, origin[k], env, c.WorkspaceRoots, &c.Warnings)
		for i := range rs {
			rs[i].Overlay = true
		}
		c.Rules = append(c.Rules, rs...)
	}
	c.Rules = childRulesWin(c.Rules, c.Chain)
	floor := func(p string) string {
		if cons == nil || cons.AllowedRoots == nil {
			return ""
		}
		return cons.floorOf(p, env.Home)
	}
	c.Rules = capRoots(c.Rules, rootKeys, c.WorkspaceRoots, env.AppReadRoots, env.RootLinks, floor)
	capRootsInOverlays(c.Rules)
	if !c.Unrestricted {
		c.Rules = append(c.Rules, protectedRules(c.Rules, c.Cwd)...)
	}
	if cons != nil {
		for _, k := range cons.RequiredDeny {
			fk, _ := ParseFilesystemKey(k, AccessDeny)
			rs := expandKey(fk, AccessDeny, RuleFromSystem, "constraints", env, c.WorkspaceRoots, &c.Warnings)
			for i := range rs {
				rs[i].Locked = true
			}
			if len(rs) > 0 && slices.Contains(rootTokens, fk.Token) {
				// Each root where it is written and where its link leads.
				var named []namedRoot
				add := func(p string, app bool) {
					named = append(named, namedRoot{path: p, app: app})
					if l, ok := env.RootLinks[p]; ok && CleanPath(l) != p {
						named = append(named, namedRoot{path: CleanPath(l), app: app})
					}
				}
				for _, r := range c.WorkspaceRoots {
					add(r, false)
				}
				for _, r := range env.AppReadRoots {
					add(CleanPath(r), true)
				}
				rs = append(rs, ancestorDenies(rs[0], named, floor)...)
			}
			c.Rules = append(c.Rules, rs...)
		}
	}
	c.GlobScanMaxDepth = flat.GlobScanMaxDepth
	if c.GlobScanMaxDepth == 0 {
		c.GlobScanMaxDepth = DefaultGlobScanMaxDepth
	}
	c.Network = compileNetwork(flat.Network)
	c.Environment = compileEnvironment(flat.Environment)
	c.Process = CompiledProcess{TimeoutCapMs: flat.Process.TimeoutCapMs, DeniedCommands: flat.Process.DeniedCommands}
	if c.Process.TimeoutCapMs == 0 {
		c.Process.TimeoutCapMs = MaxCommandDurationMs
	}
	c.BasePolicy = flat.Approvals.Policy
	if c.BasePolicy == "" {
		c.BasePolicy = ModeSupervised
	}
	c.AutoReject = flat.Approvals.AutoReject
	c.Policy = CompilePolicy(c.BasePolicy)
	for _, f := range c.Policy.behaviorFields() {
		kind := ActionKind(f.name)
		if f.name == "default_behavior" {
			kind = ActionUnknown
		}
		if slices.Contains(c.AutoReject, kind) && *f.ptr == BehaviorAsk {
			*f.ptr = BehaviorDeny
		}
	}
	return c, nil
}

// capRootsInOverlays makes a write rule of the roots the runtime names
// (:workspace_roots, :project_roots) that lies inside an overlay directory
// an overlay there too: a project root at node_modules/left-pad, more
// specific than the overlay of node_modules, would otherwise write the
// host's files (the thirty-third review). A write key the profile itself
// names inside an overlay stays write (its author chose it).
func capRootsInOverlays(rules []PathRule) {
	for i := range rules {
		r := &rules[i]
		if r.Access != AccessWrite || r.Glob || !isRootsKey(r.Key) {
			continue
		}
		for _, o := range rules {
			if o.Overlay && !o.Glob && PathWithin(r.Pattern, o.Pattern) {
				r.Access, r.Overlay = AccessRead, true
				break
			}
		}
	}
}

// isRootsKey reports whether a filesystem key names the runtime's roots.
func isRootsKey(k string) bool {
	for _, t := range []string{TokenWorkspaceRoots, TokenProjectRoots} {
		if k == t || strings.HasPrefix(k, t+"/") {
			return true
		}
	}
	return false
}

// Explain decides a path (relative paths join the profile's cwd) and says
// which rule decided it.
func (c *CompiledProfile) Explain(p string) PathDecision {
	return ResolvePathRules(c.Rules, ResolvePath(c.Cwd, p))
}

func workspaceRoots(env ProfileEnv, extra map[string]bool, warnings *[]string) []string {
	var roots []string
	if env.WorkspaceRoot != "" {
		roots = append(roots, CleanPath(env.WorkspaceRoot))
	}
	for _, r := range env.ProjectRoots {
		roots = append(roots, CleanPath(r))
	}
	for _, r := range slices.Sorted(maps.Keys(extra)) {
		if !extra[r] {
			continue
		}
		if r == "~" || strings.HasPrefix(r, "~/") {
			if env.Home == "" {
				*warnings = append(*warnings, fmt.Sprintf("workspace root %q ignored: no home directory is known", r))
				continue
			}
			r = env.Home + strings.TrimPrefix(r, "~")
		}
		roots = append(roots, CleanPath(r))
	}
	slices.Sort(roots)
	return slices.Compact(roots)
}

// expandKey turns one key into absolute rules.
func expandKey(fk FilesystemKey, a Access, prov RuleProvenance, origin string, env ProfileEnv, roots []string, warnings *[]string) []PathRule {
	rule := func(pattern string) PathRule {
		return PathRule{Key: fk.Key, Pattern: pattern, Glob: fk.Glob, Access: a, Provenance: prov, Origin: origin}
	}
	under := func(base string) PathRule {
		if fk.Sub == "" {
			return rule(CleanPath(base))
		}
		return rule(CleanPath(base + "/" + fk.Sub))
	}
	ignore := func(why string) []PathRule {
		*warnings = append(*warnings, fmt.Sprintf("filesystem key %q ignored: %s", fk.Key, why))
		return nil
	}
	switch {
	case fk.Unknown:
		return ignore("unknown special token " + fk.Token)
	case fk.Home:
		if env.Home == "" {
			return ignore("no home directory is known")
		}
		return []PathRule{under(env.Home)}
	case fk.Token == "" && strings.HasPrefix(fk.Sub, "/"):
		return []PathRule{rule(fk.Sub)}
	case fk.Token == "":
		return []PathRule{rule("/" + fk.Sub)} // a "**/" glob, anchored at /
	case fk.Token == TokenRoot:
		return []PathRule{under("/")}
	case fk.Token == TokenSlashTmp:
		return []PathRule{under("/tmp")}
	case fk.Token == TokenTmpdir:
		if env.TmpDir == "" {
			return ignore("no temporary directory is known for this turn")
		}
		return []PathRule{under(env.TmpDir)}
	case fk.Token == TokenMinimal:
		var out []PathRule
		for _, p := range SystemReadRoots {
			out = append(out, rule(p))
		}
		for _, p := range DeviceFiles {
			r := rule(p)
			if a != AccessDeny {
				r.Access = AccessWrite // a process needs /dev/null and friends writable
			}
			out = append(out, r)
		}
		return out
	case fk.Token == TokenWorkspaceRoots || fk.Token == TokenProjectRoots:
		var out []PathRule
		for _, r := range roots {
			out = append(out, under(r))
		}
		return out
	case fk.Token == TokenAppReadRoots:
		var out []PathRule
		for _, r := range env.AppReadRoots {
			out = append(out, under(r))
		}
		return out
	}
	return ignore("unsupported key")
}

// protectedRules are the read-only items of DefaultProtectedPaths inside
// every writable path rule (devices excluded) and at the cwd, as the modes
// protect them (protectedEntries), written as rules with system provenance.
// The items that only pin a path (.git itself) narrow no access: the
// snapshot carries them as entries, not rules.
func protectedRules(rules []PathRule, cwd string) []PathRule {
	var grants []FilesystemEntry
	for _, r := range rules {
		if r.Access == AccessWrite && !r.Glob && r.Key != TokenMinimal {
			grants = append(grants, FilesystemEntry{Kind: PathExplicit, Path: r.Pattern, Access: AccessWrite, ResolvedPath: r.Pattern})
		}
	}
	var out []PathRule
	for _, e := range protectedEntries(DefaultProtectedPaths, grants, cwd) {
		if e.Access == AccessRead {
			out = append(out, PathRule{Key: e.ResolvedPath, Pattern: e.ResolvedPath, Access: AccessRead, Provenance: RuleFromSystem, Origin: "protected_paths"})
		}
	}
	return out
}

func compileNetwork(n ProfileNetwork) CompiledNetwork {
	c := CompiledNetwork{
		Enabled: n.Enabled != nil && *n.Enabled, Limited: n.Mode == "limited",
		Restricted: len(n.Domains) > 0, AllowLocalhost: n.AllowLocalhost, AllowPrivateNetworks: n.AllowPrivateNetworks,
	}
	for _, d := range slices.Sorted(maps.Keys(n.Domains)) {
		if n.Domains[d] == DomainDeny {
			c.Deny = append(c.Deny, d)
		} else {
			c.Allow = append(c.Allow, d)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(n.UnixSockets)) {
		if n.UnixSockets[s] {
			c.UnixSockets = append(c.UnixSockets, CleanPath(s))
		}
	}
	return c
}

func compileEnvironment(e ProfileEnvironment) CompiledEnvironment {
	c := CompiledEnvironment{Inherit: e.Inherit, Exclude: e.Exclude, IncludeOnly: e.IncludeOnly, IncludeOnlySet: e.IncludeOnly != nil}
	if c.Inherit == "" {
		c.Inherit = InheritCore
	}
	if c.Exclude == nil {
		c.Exclude = slices.Clone(DefaultEnvExclude)
	}
	if len(e.Set) > 0 {
		c.Set = maps.Clone(e.Set)
	}
	return c
}

// childRulesWin drops each rule that matches the same paths (its Pattern
// and Glob) as a rule set further down the extends chain (chain[0] is the
// profile compiled, its parents after it): a child's entry replaces its
// parent's for the paths it names, however either key is written
// (":root/srv/data" and "/srv/data", "~/x" and "/home/me/x", ":slash_tmp"
// and "/tmp": the hundredth review), as flatten does for keys of one
// spelling. Rules of one profile keep their ties (write over read at one
// pattern and specificity), and so does a root token's rule (rootsRule).
func childRulesWin(rs []PathRule, chain []string) []PathRule {
	type key struct {
		pattern string
		glob    bool
	}
	depth := func(origin string) int {
		if i := slices.Index(chain, origin); i >= 0 {
			return i
		}
		return len(chain)
	}
	best := map[key]int{}
	for _, r := range rs {
		if rootsRule(r) {
			continue // the turn's roots: a path the runtime names
		}
		k, d := key{r.Pattern, r.Glob}, depth(r.Origin)
		if b, ok := best[k]; !ok || d < b {
			best[k] = d
		}
	}
	out := rs[:0:0]
	for _, r := range rs {
		b, ok := best[key{r.Pattern, r.Glob}]
		if !ok || depth(r.Origin) == b || rootsRule(r) && depth(r.Origin) < b {
			out = append(out, r)
		}
	}
	return out
}

// rootsRule reports whether r comes from a root token's key
// (:workspace_roots, :project_roots, :app_read_roots, and below them):
// its path is a root the runtime names for the turn, so it replaces no
// parent's rule (a child restating ":project_roots" = "write", and the
// agent naming <ws>/secrets its project root, dropped the parent's
// "<ws>/secrets" = "deny": the hundred-and-second review), though a
// child's rule that names the path replaces it.
func rootsRule(r PathRule) bool {
	for _, t := range rootTokens {
		if rest, ok := strings.CutPrefix(r.Key, t); ok && (rest == "" || rest[0] == '/') {
			return true
		}
	}
	return false
}

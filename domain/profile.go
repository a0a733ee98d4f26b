package domain

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Profile is a named, composable permission policy (REFERENCE §10): path
// rules, workspace roots, network, environment, process and approval
// settings. It is the model as written; Compile resolves it (its extends
// chain, special tokens, the turn's roots) into a CompiledProfile.
//
// Unset fields inherit from the parent (Extends). Maps merge key by key, the
// child's entry replacing the parent's for the same key; scalar settings and
// the environment lists replace; lists of denials (denied commands,
// auto-rejected approval categories) accumulate, so extending a profile can
// never silently drop one of its denials.
type Profile struct {
	// Name is the profile's name: a built-in starts with ":".
	Name string `json:"name"`
	// Extends names the one parent (a built-in or another profile), or "".
	Extends string `json:"extends,omitempty"`
	// Filesystem maps a filesystem key (see ParseFilesystemKey) to an
	// access. Keys are stored in their normalised form, so "/a/b/" and
	// "/a/b" are the same key.
	Filesystem map[string]Access `json:"filesystem,omitempty"`
	// GlobScanMaxDepth bounds how deep a spawn-time expansion of a glob
	// looks (0 = inherit; the root default is DefaultGlobScanMaxDepth).
	GlobScanMaxDepth int `json:"glob_scan_max_depth,omitempty"`
	// WorkspaceRoots adds (true) or removes (false) workspace roots:
	// absolute paths or "~/" paths.
	WorkspaceRoots map[string]bool    `json:"workspace_roots,omitempty"`
	Network        ProfileNetwork     `json:"network"`
	Environment    ProfileEnvironment `json:"environment"`
	Process        ProfileProcess     `json:"process"`
	Approvals      ProfileApprovals   `json:"approvals"`
}

// DefaultGlobScanMaxDepth is the glob scan depth when no profile sets one.
const DefaultGlobScanMaxDepth = 8

// DomainAccess is a network domain rule's value.
type DomainAccess string

// Domain rule values.
const (
	DomainAllow DomainAccess = "allow"
	DomainDeny  DomainAccess = "deny"
)

// ProfileNetwork is a profile's network settings.
type ProfileNetwork struct {
	// Enabled turns outbound access on (nil = inherit; the root default is off).
	Enabled *bool `json:"enabled,omitempty"`
	// Mode is "full" or "limited" (GET, HEAD and OPTIONS only); "" inherits.
	Mode string `json:"mode,omitempty"`
	// Domains maps a domain pattern (see ParseDomainPattern) to allow or deny.
	Domains map[string]DomainAccess `json:"domains,omitempty"`
	// UnixSockets maps a socket path to allowed (true) or not (false).
	UnixSockets map[string]bool `json:"unix_sockets,omitempty"`
	// AllowLocalhost and AllowPrivateNetworks are set only by the
	// :danger-full-access built-in (a file names the literals instead).
	AllowLocalhost       bool `json:"allow_localhost,omitempty"`
	AllowPrivateNetworks bool `json:"allow_private_networks,omitempty"`
}

// Environment inheritance levels.
const (
	InheritAll  = "all"
	InheritCore = "core"
	InheritNone = "none"
)

// DefaultEnvExclude is the exclude list of a profile that sets none.
var DefaultEnvExclude = []string{"*KEY*", "*SECRET*", "*TOKEN*"}

// ProfileEnvironment filters a command's environment: inherit, then
// exclude, then set, then include_only.
type ProfileEnvironment struct {
	// Inherit is all, core (RestrictedEnvAllowList) or none; "" inherits.
	Inherit string `json:"inherit,omitempty"`
	// Exclude lists case-insensitive glob patterns of names to drop. Nil
	// inherits; the root default is DefaultEnvExclude.
	Exclude []string `json:"exclude,omitempty"`
	// Set adds or overrides variables (merged key by key).
	Set map[string]string `json:"set,omitempty"`
	// IncludeOnly, when non-nil, keeps only the names matching one of its
	// patterns.
	IncludeOnly []string `json:"include_only,omitempty"`
}

// ProfileProcess is a profile's process settings.
type ProfileProcess struct {
	// TimeoutCapMs caps every command's run time (0 inherits; never above
	// MaxCommandDurationMs).
	TimeoutCapMs int64 `json:"timeout_cap_ms,omitempty"`
	// DeniedCommands match argv[0] or its basename (accumulate over extends).
	DeniedCommands []string `json:"denied_commands,omitempty"`
}

// ProfileApprovals is a profile's approval settings.
type ProfileApprovals struct {
	// Policy is the mode whose behaviour table (REFERENCE §1) the profile
	// uses for allow / ask / deny per action kind; "" inherits, and a
	// profile chain that never sets it is supervised (the strictest).
	Policy Mode `json:"policy,omitempty"`
	// AutoReject lists approval categories (action kinds) refused without a
	// prompt: their "ask" becomes "deny" (accumulate over extends).
	AutoReject []ActionKind `json:"auto_reject,omitempty"`
}

// ApprovalCategories are the categories a profile may auto-reject: the
// action kinds that can ask.
var ApprovalCategories = []ActionKind{
	ActionFileWrite, ActionShellCommand, ActionNetwork, ActionMCPWriteOrUnknown,
	ActionDynamicSkillTool, ActionComputerUse, ActionTaskSubagent, ActionUnknown,
}

// ProfileError is a configuration error in one profile, naming the profile,
// the key (a dotted path within the profile) and the rule.
type ProfileError struct {
	Profile string
	Key     string
	Message string
}

func (e *ProfileError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("profile %q: %s", e.Profile, e.Message)
	}
	return fmt.Sprintf("profile %q: %s: %s", e.Profile, e.Key, e.Message)
}

func perr(profile, key, format string, args ...any) *ProfileError {
	return &ProfileError{Profile: profile, Key: key, Message: fmt.Sprintf(format, args...)}
}

// ProfileSet is a set of user profiles by name; the built-ins are always
// available besides them.
type ProfileSet map[string]*Profile

// Lookup returns the profile called name: a user profile or a built-in.
func (s ProfileSet) Lookup(name string) (*Profile, bool) {
	if p, ok := BuiltinProfiles()[name]; ok {
		return p, true
	}
	p, ok := s[name]
	return p, ok
}

// Names lists the selectable names: the built-ins, then the user profiles,
// sorted.
func (s ProfileSet) Names() []string {
	out := slices.Sorted(maps.Keys(BuiltinProfiles()))
	return append(out, slices.Sorted(maps.Keys(s))...)
}

// Validate checks every profile on its own (keys, values, globs, patterns)
// and every extends chain (unknown parents, cycles). It returns all the
// errors found, sorted by profile and key.
func (s ProfileSet) Validate() []error {
	var errs []*ProfileError
	for _, name := range slices.Sorted(maps.Keys(s)) {
		p := s[name]
		if strings.HasPrefix(name, ":") {
			errs = append(errs, perr(name, "", "a profile name may not start with ':' (reserved for built-ins)"))
			continue
		}
		errs = append(errs, p.validate()...)
		if _, err := s.chain(name); err != nil {
			errs = append(errs, err)
		}
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Profile != errs[j].Profile {
			return errs[i].Profile < errs[j].Profile
		}
		return errs[i].Key < errs[j].Key
	})
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

// chain returns name's extends chain, child first, or an error naming an
// unknown parent or the cycle.
func (s ProfileSet) chain(name string) ([]*Profile, *ProfileError) {
	var out []*Profile
	seen := map[string]bool{}
	var path []string
	cur := name
	for cur != "" {
		p, ok := s.Lookup(cur)
		if !ok {
			if len(out) == 0 {
				return nil, perr(name, "", "no such profile (known: %s)", strings.Join(s.Names(), ", "))
			}
			return nil, perr(out[len(out)-1].Name, "extends", "unknown parent profile %q", cur)
		}
		if seen[cur] {
			return nil, perr(name, "extends", "cycle: %s", strings.Join(append(path, cur), " -> "))
		}
		seen[cur] = true
		path = append(path, cur)
		out = append(out, p)
		cur = p.Extends
	}
	return out, nil
}

// Validate checks the profile on its own (keys, values, globs, patterns),
// not its extends chain.
func (p *Profile) Validate() []error {
	var out []error
	for _, e := range p.validate() {
		out = append(out, e)
	}
	return out
}

func (p *Profile) validate() []*ProfileError {
	var errs []*ProfileError
	add := func(key, format string, args ...any) { errs = append(errs, perr(p.Name, key, format, args...)) }
	normal := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(p.Filesystem)) {
		fk, err := ParseFilesystemKey(k, p.Filesystem[k])
		if err != nil {
			add("filesystem."+QuoteKey(k), "%s", err.Error())
			continue
		}
		if other, dup := normal[chainKey(fk.Key)]; dup {
			add("filesystem."+QuoteKey(k), "the same key as %q (both are %q)", other, chainKey(fk.Key))
		}
		normal[chainKey(fk.Key)] = k
	}
	if p.GlobScanMaxDepth < 0 {
		add("glob_scan_max_depth", "must be at least 1, got %d", p.GlobScanMaxDepth)
	}
	roots := map[string]string{}
	for _, r := range slices.Sorted(maps.Keys(p.WorkspaceRoots)) {
		if !strings.HasPrefix(r, "/") && r != "~" && !strings.HasPrefix(r, "~/") {
			add("workspace_roots."+QuoteKey(r), "a workspace root must be an absolute path or start with ~/")
			continue
		}
		if other, dup := roots[NormalizeFilesystemKey(r)]; dup {
			add("workspace_roots."+QuoteKey(r), "the same root as %q (both are %q)", other, NormalizeFilesystemKey(r))
		}
		roots[NormalizeFilesystemKey(r)] = r
	}
	if m := p.Network.Mode; m != "" && m != "full" && m != "limited" {
		add("network.mode", "%q is not full or limited", m)
	}
	for _, d := range slices.Sorted(maps.Keys(p.Network.Domains)) {
		v := p.Network.Domains[d]
		if v != DomainAllow && v != DomainDeny {
			add("network.domains."+QuoteKey(d), "%q is not allow or deny", v)
			continue
		}
		if _, err := ParseDomainPattern(d, v); err != nil {
			add("network.domains."+QuoteKey(d), "%s", err.Error())
		}
	}
	sockets := map[string]string{}
	for _, u := range slices.Sorted(maps.Keys(p.Network.UnixSockets)) {
		if !strings.HasPrefix(u, "/") {
			add("network.unix_sockets."+QuoteKey(u), "a unix socket must be an absolute path")
			continue
		}
		if other, dup := sockets[CleanPath(u)]; dup {
			add("network.unix_sockets."+QuoteKey(u), "the same socket as %q (both are %q)", other, CleanPath(u))
		}
		sockets[CleanPath(u)] = u
	}
	if i := p.Environment.Inherit; i != "" && i != InheritAll && i != InheritCore && i != InheritNone {
		add("environment.inherit", "%q is not all, core or none", i)
	}
	for _, pat := range append(slices.Clone(p.Environment.Exclude), p.Environment.IncludeOnly...) {
		if !validEnvPattern(pat) {
			add("environment", "bad name pattern %q (letters, digits, _ and *)", pat)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.Environment.Set)) {
		if !validEnvPattern(name) || strings.Contains(name, "*") {
			add("environment.set."+QuoteKey(name), "not a variable name")
		}
	}
	if t := p.Process.TimeoutCapMs; t < 0 || t > MaxCommandDurationMs {
		add("process.timeout_cap_ms", "must be between 1 and %d, got %d", MaxCommandDurationMs, t)
	}
	for _, c := range p.Process.DeniedCommands {
		if strings.TrimSpace(c) == "" {
			add("process.denied_commands", "an empty command name")
		}
	}
	if m := p.Approvals.Policy; m != "" && !slices.Contains(Modes, m) {
		add("approvals.policy", "%q is not one of %s", m, joinModes())
	}
	for _, c := range p.Approvals.AutoReject {
		if !slices.Contains(ApprovalCategories, c) {
			add("approvals.auto_reject", "unknown category %q (known: %s)", c, joinKinds(ApprovalCategories))
		}
	}
	return errs
}

func joinModes() string {
	s := make([]string, len(Modes))
	for i, m := range Modes {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

func joinKinds(ks []ActionKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func validEnvPattern(p string) bool {
	if p == "" {
		return false
	}
	for _, c := range p {
		if !(c == '_' || c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// QuoteKey writes one part of a key path the way a TOML dotted key needs
// it: bare when it can be, else quoted. Errors name keys with it.
func QuoteKey(k string) string {
	for _, c := range k {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Sprintf("%q", k)
		}
	}
	return k
}

// chainKey is the form a filesystem key is compared and merged by: its
// normal form (NormalizeFilesystemKey), with the older :project_roots
// written :workspace_roots (the same roots), and :root and :slash_tmp as
// the paths they are ("/", "/tmp"). Keys whose paths depend on the turn
// (~, :tmpdir, the roots) are merged by their rules' patterns
// (childRulesWin).
func chainKey(k string) string {
	k = NormalizeFilesystemKey(k)
	for _, t := range [][2]string{{TokenProjectRoots, TokenWorkspaceRoots}, {TokenRoot, "/"}, {TokenSlashTmp, "/tmp"}} {
		if rest, ok := strings.CutPrefix(k, t[0]); ok && (rest == "" || rest[0] == '/') {
			return NormalizeFilesystemKey(t[1] + rest)
		}
	}
	return k
}

// flatten merges a chain (child first) into one profile, following the
// merge rules of Profile. The result's Name is the child's.
func flatten(chain []*Profile) (Profile, map[string]string) {
	out := Profile{Name: chain[0].Name, Filesystem: map[string]Access{}, WorkspaceRoots: map[string]bool{}}
	out.Network.Domains = map[string]DomainAccess{}
	out.Network.UnixSockets = map[string]bool{}
	out.Environment.Set = map[string]string{}
	// origin records which profile of the chain set each filesystem key.
	origin := map[string]string{}
	written := map[string]string{}         // chainKey → the key as its entry was written
	for i := len(chain) - 1; i >= 0; i-- { // parent first, child last wins
		p := chain[i]
		// Each map is merged by its keys' normal form, so that a child's
		// entry replaces its parent's however either is written (the
		// ninety-eighth review: a child's "/srv/data/**" = "read", or
		// ":project_roots" = "read", left the parent's "/srv/data" or
		// ":workspace_roots" = "write" in force beside it, and write
		// won the tie).
		for k, v := range p.Filesystem {
			c := chainKey(k)
			if w, ok := written[c]; ok {
				delete(out.Filesystem, w)
				delete(origin, w)
			}
			written[c] = k // shown as the profile that set it wrote it
			out.Filesystem[k] = v
			origin[k] = p.Name
		}
		if p.GlobScanMaxDepth > 0 {
			out.GlobScanMaxDepth = p.GlobScanMaxDepth
		}
		for r, v := range p.WorkspaceRoots {
			if strings.HasPrefix(r, "/") || r == "~" || strings.HasPrefix(r, "~/") {
				r = NormalizeFilesystemKey(r)
			}
			out.WorkspaceRoots[r] = v
		}
		n := p.Network
		if n.Enabled != nil {
			v := *n.Enabled
			out.Network.Enabled = &v
		}
		if n.Mode != "" {
			out.Network.Mode = n.Mode
		}
		maps.Copy(out.Network.Domains, n.Domains)
		for u, v := range n.UnixSockets {
			if strings.HasPrefix(u, "/") {
				u = CleanPath(u)
			}
			out.Network.UnixSockets[u] = v
		}
		out.Network.AllowLocalhost = out.Network.AllowLocalhost || n.AllowLocalhost
		out.Network.AllowPrivateNetworks = out.Network.AllowPrivateNetworks || n.AllowPrivateNetworks
		e := p.Environment
		if e.Inherit != "" {
			out.Environment.Inherit = e.Inherit
		}
		if e.Exclude != nil {
			out.Environment.Exclude = slices.Clone(e.Exclude)
		}
		maps.Copy(out.Environment.Set, e.Set)
		if e.IncludeOnly != nil {
			out.Environment.IncludeOnly = slices.Clone(e.IncludeOnly)
		}
		if p.Process.TimeoutCapMs > 0 {
			out.Process.TimeoutCapMs = p.Process.TimeoutCapMs
		}
		out.Process.DeniedCommands = append(out.Process.DeniedCommands, p.Process.DeniedCommands...)
		if p.Approvals.Policy != "" {
			out.Approvals.Policy = p.Approvals.Policy
		}
		out.Approvals.AutoReject = append(out.Approvals.AutoReject, p.Approvals.AutoReject...)
	}
	out.Process.DeniedCommands = sortedUnique(out.Process.DeniedCommands)
	slices.Sort(out.Approvals.AutoReject)
	out.Approvals.AutoReject = slices.Compact(out.Approvals.AutoReject)
	return out, origin
}

package domain

import (
	"errors"
	"path"
	"strings"
)

// Special filesystem tokens (REFERENCE §10). A key is a token alone or a
// token followed by "/subpath".
const (
	TokenRoot           = ":root"            // all of /
	TokenMinimal        = ":minimal"         // what a process needs to start: SystemReadRoots, DeviceFiles
	TokenWorkspaceRoots = ":workspace_roots" // every workspace root (the turn's, its project roots, the profile's additions)
	TokenProjectRoots   = ":project_roots"   // the same roots (the older spelling)
	TokenTmpdir         = ":tmpdir"          // the turn's $TMPDIR
	TokenSlashTmp       = ":slash_tmp"       // /tmp
	TokenAppReadRoots   = ":app_read_roots"  // the runtime's read-only roots (used by the built-ins)
)

// SpecialTokens lists the known tokens.
var SpecialTokens = []string{TokenRoot, TokenMinimal, TokenWorkspaceRoots, TokenProjectRoots, TokenTmpdir, TokenSlashTmp, TokenAppReadRoots}

// ProfileAccessValues are the values a profile's filesystem rule may take.
var ProfileAccessValues = []string{"read", "write", "overlay", "deny", "none"}

// ParseProfileAccess parses a filesystem rule's value: read, write,
// overlay, deny, or the older spelling none (= deny).
func ParseProfileAccess(s string) (Access, error) {
	switch s {
	case "read":
		return AccessRead, nil
	case "write":
		return AccessWrite, nil
	case "overlay":
		return AccessOverlay, nil
	case "deny", "none":
		return AccessDeny, nil
	}
	return "", &InvalidEnumError{Field: "access", Value: s, Allowed: ProfileAccessValues}
}

// FilesystemKey is a parsed filesystem key.
type FilesystemKey struct {
	// Key is the normalised key (what extends compares).
	Key string
	// Token is the special token the key starts with, or "" for an
	// absolute, "~/" or "**/" key.
	Token string
	// Home is set for "~" and "~/…" keys.
	Home bool
	// Sub is the path after the token or "~" ("" = the root itself); for
	// an absolute key, the absolute path; for a "**/" key, the glob.
	Sub string
	// Glob is set when the key has a wildcard (*, ?, [) after the trailing
	// "/**" (the subtree, not a glob) is removed.
	Glob bool
	// Unknown is set for an unknown special token: it is warned about and
	// ignored, never widened.
	Unknown bool
}

var errRelativeKey = errors.New(`a relative key is not allowed here: start it with /, ~/, **/ or a special token (` +
	`:root, :minimal, :workspace_roots, :project_roots, :tmpdir, :slash_tmp), or put it under ":workspace_roots"`)

// NormalizeFilesystemKey returns k's normalised form: the trailing "/**"
// dropped (it means the subtree, which a path key already is), "." and
// repeated slashes dropped. It does not validate.
func NormalizeFilesystemKey(k string) string {
	for strings.HasSuffix(k, "/**") && len(k) > 3 {
		k = strings.TrimSuffix(k, "/**")
	}
	if k == "/**" {
		return "/"
	}
	switch {
	case strings.HasPrefix(k, "/"):
		return CleanPath(k)
	case strings.HasPrefix(k, ":"), k == "~", strings.HasPrefix(k, "~/"):
		head, sub, _ := strings.Cut(k, "/")
		if s := cleanRelative(sub); s != "" {
			return head + "/" + s
		}
		return head
	default:
		return cleanRelative(k)
	}
}

// cleanRelative drops empty and "." components of a relative path.
func cleanRelative(p string) string {
	var parts []string
	for seg := range strings.SplitSeq(p, "/") {
		if seg != "" && seg != "." {
			parts = append(parts, seg)
		}
	}
	return strings.Join(parts, "/")
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// ParseFilesystemKey parses and validates a filesystem key with its access:
// globs are allowed only with deny; ".." is refused in a relative part; a
// glob component must be a valid pattern ("**" alone, or path.Match syntax).
// An unknown special token is not an error (Unknown is set).
func ParseFilesystemKey(k string, access Access) (FilesystemKey, error) {
	if access != AccessRead && access != AccessWrite && access != AccessDeny && access != AccessOverlay {
		return FilesystemKey{}, &InvalidEnumError{Field: "access", Value: string(access), Allowed: ProfileAccessValues}
	}
	if k == "" {
		return FilesystemKey{}, errors.New("an empty key")
	}
	if strings.IndexByte(k, 0) >= 0 {
		return FilesystemKey{}, errors.New("a key with a NUL byte")
	}
	n := NormalizeFilesystemKey(k)
	fk := FilesystemKey{Key: n}
	switch {
	case strings.HasPrefix(n, "/"):
		fk.Sub = n
	case strings.HasPrefix(n, ":"):
		fk.Token, fk.Sub, _ = strings.Cut(n, "/")
		fk.Unknown = !isKnownToken(fk.Token)
		if fk.Token == TokenMinimal && fk.Sub != "" {
			return fk, errors.New(":minimal takes no subpath")
		}
		if access == AccessOverlay && (fk.Token == TokenMinimal || (fk.Token == TokenRoot && fk.Sub == "")) {
			return fk, errors.New("overlay is for a directory a command's tools write as a cache (a build cache, a package store), not for " + fk.Token)
		}
	case n == "~" || strings.HasPrefix(n, "~/"):
		fk.Home = true
		_, fk.Sub, _ = strings.Cut(n, "/")
	case strings.HasPrefix(n, "**/") || n == "**":
		fk.Sub = n
	default:
		return fk, errRelativeKey
	}
	if !strings.HasPrefix(n, "/") {
		for seg := range strings.SplitSeq(fk.Sub, "/") {
			if seg == ".." {
				return fk, errors.New(`".." is not allowed in a relative path`)
			}
		}
	}
	// A set's alternatives may hold a '/' ("{secrets,private/keys}"): the
	// whole key is looked at, not each component.
	if braceSet(fk.Sub) {
		return fk, errors.New("a brace set (" + fk.Sub + ") is not expanded here, and would name that literal file: write one key per alternative")
	}
	fk.Glob = hasGlob(fk.Sub)
	if fk.Glob {
		if access != AccessDeny {
			return fk, errors.New("a glob is allowed only with deny (a glob with read, write or overlay would grant files that appear later)")
		}
		for seg := range strings.SplitSeq(fk.Sub, "/") {
			if seg == "**" {
				continue
			}
			if strings.Contains(seg, "**") {
				return fk, errors.New(`"**" must be a whole path component`)
			}
			if strings.Contains(seg, "[!") {
				// The shells' and .gitignore's negation; path.Match's is
				// "[^…]", and it reads "[!" as a class holding '!'.
				return fk, errors.New("a class that starts with '!' (" + seg + ") matches '!' here: write [^…] for a class that negates")
			}
			if _, err := path.Match(seg, ""); err != nil {
				return fk, errors.New("bad glob component " + seg)
			}
		}
	}
	return fk, nil
}

// braceSet reports whether a path component holds a brace set ("{a,b}",
// "*.{pem,key}"), which shells and most glob dialects expand and path.Match
// reads as literal characters: a deny written so would deny nothing the
// operator meant.
// Every '{' is looked at: a brace without a comma before it ("{x}.{a,b}",
// "${ENV}.{pem,key}") leaves the set after it a set. Given a whole key, a
// set across components ("{a,b/c}") is found too.
func braceSet(seg string) bool {
	for i := strings.IndexByte(seg, '{'); i >= 0; {
		j := strings.IndexByte(seg[i:], '}')
		if j < 0 {
			return false
		}
		if strings.Contains(seg[i:i+j], ",") {
			return true
		}
		k := strings.IndexByte(seg[i+1:], '{')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

func isKnownToken(t string) bool {
	for _, s := range SpecialTokens {
		if s == t {
			return true
		}
	}
	return false
}

// RuleProvenance says where a path rule came from.
type RuleProvenance string

// Rule provenances: a profile from the profiles file, a built-in profile,
// or the system (operator constraints, protected paths, the turn's roots).
const (
	RuleFromProfile RuleProvenance = "profile"
	RuleFromBuiltin RuleProvenance = "built_in"
	RuleFromSystem  RuleProvenance = "system"
)

// PathRule is one compiled filesystem rule: an absolute path (the subtree)
// or an absolute glob, with its access and where it came from.
type PathRule struct {
	// Key is the key as written (normalised) that produced the rule.
	Key string `json:"key"`
	// Pattern is the absolute path or glob the rule matches.
	Pattern string `json:"pattern"`
	Glob    bool   `json:"glob,omitempty"`
	Access  Access `json:"access"`
	// Provenance and Origin: who made the rule (the profile's name, the
	// built-in's name, or the system list).
	Provenance RuleProvenance `json:"provenance"`
	Origin     string         `json:"origin"`
	// Locked marks an operator's required deny: nothing under it can be
	// reopened, whatever its specificity.
	Locked bool `json:"locked,omitempty"`
	// Overlay (Access is read) marks a profile's "overlay" rule: the
	// sandbox lets a command write the directory through an overlay that
	// is its own and goes with it; decisions see read.
	Overlay bool `json:"overlay,omitempty"`
	// LinkedFrom (a copy) is the literal path, written through a symlink,
	// of the rule this one copies where the link led when the snapshot was
	// selected (BindCarveLinks).
	LinkedFrom string `json:"linked_from,omitempty"`
	// Capped marks a root's rule (":workspace_roots", ":project_roots"
	// expanded at a root) that the profile's own rules cap (capRoots: a
	// rule above the root, at it, or at an anchor between it and its
	// allowed root reads or denies there): Approvable leaves it as it is
	// rather than opening the root for a person's approval.
	Capped bool `json:"capped,omitempty"`
}

// match reports whether the rule matches the path's components and with
// which specificity: the number of components of the part of the path the
// rule names. A path rule matches its subtree and has the specificity of its
// own path; a glob matches a path when it matches the path or one of its
// ancestors, with the specificity of the longest such ancestor (the path
// itself counts). So "**/*.env" on /w/a/.env is as specific as the rule
// "/w/a/.env", more specific than a write on /w, and a rule deeper inside a
// directory a glob denies can reopen part of it, exactly as for path rules.
func (r *PathRule) match(comps []string) (int, bool) {
	if !r.Glob {
		pc := splitComps(r.Pattern)
		if len(pc) > len(comps) {
			return 0, false
		}
		for i := range pc {
			if pc[i] != comps[i] {
				return 0, false
			}
		}
		return len(pc), true
	}
	// One pass gives whether the pattern matches each leading part of
	// comps; the longest that it matches is the specificity. (Matching
	// each leading part on its own cost a path of n components n passes:
	// 0.2 s a name at 2,000 levels, each name of a tree scan.)
	m := globPrefixes(splitComps(r.Pattern), comps)
	for k := len(comps); k >= 0; k-- {
		if m[k] {
			return k, true
		}
	}
	return 0, false
}

func splitComps(p string) []string {
	if p == "/" || p == "" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

// globPrefixes reports, for each j, whether pat matches comps[:j]: a
// pattern whose "**" components match zero or more components and whose
// other components follow path.Match. Dynamic programming: linear in
// pattern × path.
func globPrefixes(pat, comps []string) []bool {
	// m[j] reports whether pat[:i] matches comps[:j], row by row.
	m := make([]bool, len(comps)+1)
	m[0] = true
	for _, p := range pat {
		m = globStep(m, p, comps)
	}
	return m
}

// globStep is one row of globPrefixes: from m, whether pat[:i] matches
// each comps[:j], whether pat[:i] followed by p does.
func globStep(m []bool, p string, comps []string) []bool {
	next := make([]bool, len(comps)+1)
	if p == "**" {
		seen := false
		for j := range m {
			seen = seen || m[j]
			next[j] = seen
		}
		return next
	}
	for j := 1; j <= len(comps); j++ {
		if m[j-1] {
			ok, _ := path.Match(p, comps[j-1])
			next[j] = ok
		}
	}
	return next
}

// tieRank orders rules at equal specificity: deny > overlay > write > read.
func tieRank(r *PathRule) int {
	switch r.Access {
	case AccessDeny:
		return 4
	case AccessWrite:
		return 2
	case AccessRead:
		if r.Overlay {
			// The host's directory is read; a root named there (the
			// runtime names roots) must not make it written.
			return 3
		}
		return 1
	}
	return 5 // an unknown access is treated as the strongest denial
}

// PathDecision is the access a path gets and the rule that decided it.
type PathDecision struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	// Rule is the deciding rule; nil when no rule matches (deny).
	Rule *PathRule `json:"rule,omitempty"`
	// Specificity is the deciding rule's specificity (see PathRule.match).
	Specificity int `json:"specificity"`
}

// ResolvePathRules decides a clean absolute path against rules: a locked
// (operator) deny that matches wins outright; otherwise the most specific
// matching rule wins, ties go deny > overlay > write > read, and no match is deny.
// Unknown access values are treated as deny.
//
// A deny rule (and an unknown access) also matches p in any case (its
// pattern and p compared in lower case): where the file system finds
// names in any case (WSL's drvfs, vfat and exfat, an ext4 casefold
// directory), "**/*.env" is prod.ENV's rule and ":workspace_roots/secrets"
// SECRETS' (the hundred-and-thirty-sixth review). Such a match denies p
// unless a rule matching p exactly is strictly more specific; a locked one
// denies outright. Grants (read, write, overlay) match exactly only:
// folding one would widen what it allows.
func ResolvePathRules(rules []PathRule, p string) PathDecision {
	p = CleanPath(p)
	comps := splitComps(p)
	var lower []string // comps in lower case, made for the first glob deny that does not match exactly
	var fold *PathRule
	foldSpec := -1
	d := PathDecision{Path: p, Access: AccessDeny, Specificity: -1}
	for i := range rules {
		r := &rules[i]
		spec, ok := r.match(comps)
		if !ok {
			if r.Access == AccessRead || r.Access == AccessWrite {
				continue
			}
			if spec, ok = r.matchFold(comps, &lower); !ok {
				continue
			}
			if r.Locked {
				return PathDecision{Path: p, Access: AccessDeny, Rule: r, Specificity: spec}
			}
			if fold == nil || spec > foldSpec {
				fold, foldSpec = r, spec
			}
			continue
		}
		if r.Locked {
			return PathDecision{Path: p, Access: AccessDeny, Rule: r, Specificity: spec}
		}
		if d.Rule == nil || spec > d.Specificity || (spec == d.Specificity && tieRank(r) > tieRank(d.Rule)) {
			d.Rule, d.Specificity = r, spec
		}
	}
	if fold != nil && (d.Rule == nil || foldSpec >= d.Specificity) {
		return PathDecision{Path: p, Access: AccessDeny, Rule: fold, Specificity: foldSpec}
	}
	if d.Rule == nil {
		d.Specificity = 0
		return d
	}
	d.Access = d.Rule.Access
	if d.Access != AccessRead && d.Access != AccessWrite {
		d.Access = AccessDeny
	}
	return d
}

// lowerComps is comps in lower case (strings.ToLower: a component already
// in lower case is not copied).
func lowerComps(comps []string) []string {
	out := make([]string, len(comps))
	for i, c := range comps {
		out[i] = FoldName(c)
	}
	return out
}

// matchFold is match in any case: a path rule's components compared with
// strings.EqualFold, a glob's pattern and the path's components (lower,
// made from comps on first use) in lower case.
func (r *PathRule) matchFold(comps []string, lower *[]string) (int, bool) {
	if !r.Glob {
		n := 0
		if pat := strings.TrimPrefix(r.Pattern, "/"); pat != "" {
			for c := range strings.SplitSeq(pat, "/") {
				if n >= len(comps) || !FoldEqual(c, comps[n]) {
					return 0, false
				}
				n++
			}
		}
		return n, true
	}
	if *lower == nil {
		*lower = lowerComps(comps)
	}
	m := globPrefixes(splitComps(FoldName(r.Pattern)), *lower)
	for k := len(comps); k >= 0; k-- {
		if m[k] {
			return k, true
		}
	}
	return 0, false
}

// GlobDenyBelow reports whether a glob deny rule of rules may match a path
// strictly below the clean absolute path p: a leading part of its pattern
// matches p whole, ending in a name or pattern, or in a "**" after one
// past the pattern's plain anchor ("/w/**/secrets/*.pem" and /w/secrets;
// "/w/**/keys/**/*.pem" and /w/keys/sub; "/w/**/*.env" and no directory). A link made at p
// leads what is written there, matched and masked at the next spawn,
// elsewhere (the hundred-and-twenty-second review).
func GlobDenyBelow(rules []PathRule, p string) bool {
	// In any case, as ResolvePathRules matches a deny.
	comps := lowerComps(splitComps(CleanPath(p)))
	for i := range rules {
		r := &rules[i]
		if !r.Glob || r.Access != AccessDeny {
			continue
		}
		pat := splitComps(FoldName(r.Pattern))
		anchor := 0 // the pattern's leading plain components: the directory it is rooted at
		for anchor < len(pat) && !hasGlob(pat[anchor]) {
			anchor++
		}
		lastNamed := -1 // the last component of pat[:k] other than "**"
		m := make([]bool, len(comps)+1)
		m[0] = true
		for k, c := range pat {
			if k > 0 && m[len(comps)] && (pat[k-1] != "**" || lastNamed >= anchor) {
				// pat[:k] matches p, and pat[k:] names something
				// below: its last component by a name or pattern
				// ("secrets"), or a "**" after one past the pattern's
				// anchor ("keys/**"), not a "**" right after the
				// anchor, which matches every path below the root.
				return true
			}
			if c != "**" {
				lastNamed = k
			}
			m = globStep(m, c, comps)
		}
	}
	return false
}

package domain

import (
	"path"
	"slices"
	"strings"
)

// A profile's keys under :workspace_roots, :project_roots and
// :app_read_roots are expanded at the roots the turn's starter names: the
// runtime, whose credential the agent holds. "The most specific rule
// wins" then let a root outrank the profile's own rules (the forty-eighth
// and forty-ninth reviews): a project root inside a directory the profile
// denies ("secrets" = deny, "**/private" = deny, "/code/infra" = read)
// made a write rule more specific than the deny or the read; a root named
// at a read-only carve-out (".github/workflows" = read) tied with it, and
// write wins a tie; a workspace root chosen inside the denied directory
// itself, or at the parent of a key of two components (repo/.github under
// ".github/workflows"), expanded the key below itself or not at all.
//
// So each root is judged as if the turn had been rooted at each of its
// anchors: the directories above it, up to the allowed root it lies in
// (constraints' allowed_roots; without them the runtime may root a turn
// anywhere, and only the roots it names above it count), where a key of
// the profile names something on its path, and the roots it names above
// it. capRoots lowers the root's rules to the least that the profile's
// other rules and those anchors' expansions give the root (a deny, a
// read-only carve-out, an overlay), and adds the anchors' deny, read and
// overlay expansions that lie inside the root as rules of their own.

// rootTokens are the keys whose rules are expanded at runtime-named roots.
var rootTokens = []string{TokenWorkspaceRoots, TokenProjectRoots, TokenAppReadRoots}

// rootKey is one key of a root token, parsed: rule holds its key, access,
// overlay and provenance (its pattern unexpanded).
type rootKey struct {
	rule PathRule
	app  bool     // an :app_read_roots key (expanded at the app roots)
	sub  []string // the subpath's components; nil for the root itself
}

// newRootKey returns the parsed key of rule r, or false when it is no root
// token's.
func newRootKey(r PathRule) (rootKey, bool) {
	fk, _ := ParseFilesystemKey(r.Key, AccessRead)
	if !slices.Contains(rootTokens, fk.Token) {
		return rootKey{}, false
	}
	return rootKey{rule: r, app: fk.Token == TokenAppReadRoots, sub: splitComps("/" + fk.Sub)}, true
}

// at reports whether the key expanded at the ancestor comps[:j] of a path
// (comps) matches it, and with which specificity (PathRule.match).
func (k *rootKey) at(comps []string, j int) (int, bool) {
	if !k.rule.Glob {
		if j+len(k.sub) > len(comps) || !slices.Equal(comps[j:j+len(k.sub)], k.sub) {
			return 0, false
		}
		return j + len(k.sub), true
	}
	m := globPrefixes(k.sub, comps[j:])
	for n := len(comps) - j; n >= 0; n-- {
		if m[n] {
			return j + n, true
		}
	}
	return 0, false
}

// starts returns the j at which the key's first component that is not
// "**" matches comps[j]: the ancestors comps[:j] where the key may name
// something on the path (after a leading "**" any ancestor above would
// too, and comps[:j] is the nearest).
func (k *rootKey) starts(comps []string) []int {
	f := ""
	for _, c := range k.sub {
		if c != "**" {
			f = c
			break
		}
	}
	if f == "" {
		return nil
	}
	var out []int
	for j, comp := range comps {
		if ok, _ := path.Match(f, comp); ok {
			out = append(out, j)
		}
	}
	return out
}

// Cap levels, lowest first: what a root's rule is lowered to.
const (
	capDeny = iota
	capRead
	capOverlay
	capNone
)

// levelOf is the cap level of a restricting rule.
func levelOf(r *PathRule) int {
	switch {
	case r.Access == AccessDeny:
		return capDeny
	case r.Overlay:
		return capOverlay
	case r.Access == AccessRead:
		return capRead
	}
	return capNone
}

// lower lowers r to the cap level c.
func lower(r *PathRule, c int) {
	switch {
	case c == capDeny:
		r.Access, r.Overlay = AccessDeny, false
	case c == capRead && r.Access == AccessWrite:
		r.Access = AccessRead
	case c == capOverlay && r.Access == AccessWrite:
		r.Access, r.Overlay = AccessRead, true
	}
}

// namedRoot is a root the rules were expanded at.
type namedRoot struct {
	path string
	app  bool
}

// capRoots applies the rule above to rules (the profile's, expanded) and
// returns them with the anchors' expansions added. keys are the profile's
// root-token keys, unexpanded; floor returns the allowed root a path lies
// in ("" when the constraints bound no roots).
func capRoots(rules []PathRule, keys []PathRule, roots, appRoots []string, links map[string]string, floor func(string) string) []PathRule {
	var rk []rootKey
	for _, k := range keys {
		if p, ok := newRootKey(k); ok {
			rk = append(rk, p)
		}
	}
	from := expandedFrom(rules, rk, roots, appRoots)
	var nonRoot []PathRule
	for i := range rules {
		if from[i] == (namedRoot{}) {
			nonRoot = append(nonRoot, rules[i])
		}
	}
	idx := newRuleIndex(nonRoot)
	var named []namedRoot
	ofRoot := map[namedRoot][]int{} // the rules expanded from each root
	for i, f := range from {
		if f == (namedRoot{}) {
			continue
		}
		if _, ok := ofRoot[f]; !ok {
			named = append(named, f)
		}
		ofRoot[f] = append(ofRoot[f], i)
	}
	seen := map[PathRule]bool{}
	var added []PathRule
	// The roots named above a root are looked for where each is written
	// and, through a symlink, where it leads: a workspace root named by
	// the path a person opened (~/code -> /data/code) beside project
	// roots named where they lie capped nothing (the hundred-and-
	// eightieth review).
	above := slices.Clone(named)
	for _, n := range named {
		if l, ok := links[n.path]; ok && CleanPath(l) != n.path {
			above = append(above, namedRoot{path: CleanPath(l), app: n.app})
		}
	}
	for _, root := range named {
		// A root through a symlink is judged where it is written and
		// where it leads (decisions and the sandbox follow the link).
		at := []namedRoot{root}
		if l, ok := links[root.path]; ok && CleanPath(l) != root.path {
			at = append(at, namedRoot{path: CleanPath(l), app: root.app})
		}
		c := capNone
		js := make([][]int, len(at))
		for k, r := range at {
			comps := splitComps(r.path)
			js[k] = anchors(r, comps, above, rk, floor)
			startsAt := make([][]bool, len(rk))
			for i := range rk {
				startsAt[i] = make([]bool, len(comps))
				for _, j := range rk[i].starts(comps) {
					startsAt[i][j] = true
				}
				// And at each root named above it, where the glob is
				// matched from that root: without allowed_roots the
				// directories where a glob starts are no anchors, and
				// "**/secrets" was tried nowhere, so a project root at
				// app/secrets/prod outranked it (the hundred-and-
				// seventy-ninth review). Few roots are named.
				for _, n := range above {
					if n.path != r.path && !n.app && PathWithin(r.path, n.path) {
						if j := len(splitComps(n.path)); j < len(comps) {
							startsAt[i][j] = true
						}
					}
				}
			}
			for _, j := range js[k] {
				c = min(c, anchorCap(r, comps, j, rk, startsAt))
			}
			c = min(c, idx.cover(r.path, outermost(r, above, floor)))
		}
		for _, i := range ofRoot[root] {
			lower(&rules[i], c)
			// Recorded even where lowering changed nothing (a read-only
			// profile's root already reads): approvableRules opens only
			// the roots nothing caps (the hundred-and-seventy-sixth and
			// -seventh reviews: a root named inside a read-only carve-out,
			// nested roots there, an anchor's carve-out under
			// allowed_roots).
			rules[i].Capped = rules[i].Capped || c != capNone
		}
		if c == capDeny {
			continue // nothing inside it to add
		}
		for k, r := range at {
			comps := splitComps(r.path)
			for _, j := range js[k] {
				for _, x := range inside(r, comps, j, rk) {
					if !seen[x] {
						seen[x] = true
						added = append(added, x)
					}
				}
			}
		}
	}
	// A copy at the pattern of a root's own rule decides with it at equal
	// specificity, where write wins over read: the root's rule is lowered
	// to the copy's level instead.
	rootRules := map[string][]int{}
	for i := range rules {
		if from[i] != (namedRoot{}) && !rules[i].Glob {
			rootRules[rules[i].Pattern] = append(rootRules[rules[i].Pattern], i)
		}
	}
	for _, a := range added {
		if !a.Glob {
			for _, i := range rootRules[a.Pattern] {
				lower(&rules[i], levelOf(&a))
			}
		}
	}
	have := map[PathRule]bool{}
	for _, r := range rules {
		have[r] = true
	}
	for _, a := range added {
		if !have[a] {
			rules = append(rules, a)
		}
	}
	return rules
}

// anchors returns the j of the root's anchors comps[:j]: its proper
// ancestors at or below the allowed root it lies in where a key of its
// family names something on its path, that allowed root itself, and the
// roots named above it.
func anchors(root namedRoot, comps []string, named []namedRoot, keys []rootKey, floor func(string) string) []int {
	lo := len(comps) // no ancestor counts without allowed roots
	if f := floor(root.path); f != "" && f != root.path {
		lo = len(splitComps(f))
	}
	var out []int
	seen := make([]bool, len(comps))
	add := func(j int) {
		if j >= 0 && j < len(comps) && !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	add(lo)
	for i := range keys {
		if !keys[i].app || root.app {
			for _, j := range keys[i].starts(comps) {
				if j >= lo {
					add(j)
				}
			}
		}
	}
	for _, n := range named {
		if n.path != root.path && !n.app && PathWithin(root.path, n.path) {
			add(len(splitComps(n.path)))
		}
	}
	return out
}

// outermost is the root's outermost anchor: the allowed root it lies in,
// or the outermost root named above it, or the root itself.
func outermost(root namedRoot, named []namedRoot, floor func(string) string) string {
	out := root.path
	if f := floor(root.path); f != "" {
		out = f
	}
	for _, n := range named {
		if !n.app && PathWithin(root.path, n.path) && len(n.path) < len(out) {
			out = n.path
		}
	}
	return out
}

// family reports whether key k is expanded at anchors of root: a
// workspace or project root's anchors take the workspace and project
// keys; an app read root's take those and its own token's.
func family(k *rootKey, root namedRoot) bool { return !k.app || root.app }

// anchorCap is the level the family's keys, expanded at the anchor
// comps[:j], give the root (comps) where a subpath key decides it.
// startsAt[i][j] says whether key i starts at comps[j] (rootKey.starts).
func anchorCap(root namedRoot, comps []string, j int, keys []rootKey, startsAt [][]bool) int {
	c := capNone
	for _, app := range []bool{false, true} {
		var best *rootKey
		spec := -1
		for i := range keys {
			k := &keys[i]
			if k.app != app || !family(k, root) || k.rule.Glob && !startsAt[i][j] {
				continue // a glob is tried where it starts (its nearest anchor): matching
				// it at every anchor above cost depth squared a root
			}
			s, ok := k.at(comps, j)
			if ok && (best == nil || s > spec || s == spec && tieRank(&k.rule) > tieRank(&best.rule)) {
				best, spec = k, s
			}
		}
		if best != nil && len(best.sub) > 0 {
			c = min(c, levelOf(&best.rule))
		}
	}
	return c
}

// inside returns the family's deny, read and overlay keys expanded at the
// anchor comps[:j] that lie inside the root (a glob whose literal part is
// above the root, a deny only).
func inside(root namedRoot, comps []string, j int, keys []rootKey) []PathRule {
	var out []PathRule
	for i := range keys {
		k := &keys[i]
		if !family(k, root) || len(k.sub) == 0 || levelOf(&k.rule) == capNone || root.app && !k.app && k.rule.Access != AccessDeny {
			continue
		}
		r := k.rule
		r.Pattern = underRoot("/"+strings.Join(comps[:j], "/"), k.sub)
		lit := r.Pattern
		if r.Glob {
			lit = literalPrefix(r.Pattern)
		}
		if PathWithin(lit, root.path) && lit != root.path || r.Glob && r.Access == AccessDeny && PathWithin(root.path, lit) {
			out = append(out, r)
		}
	}
	return out
}

// expandedFrom returns, for each rule, the root it was expanded from (the
// zero namedRoot for a rule of no root token).
func expandedFrom(rules []PathRule, keys []rootKey, roots, appRoots []string) []namedRoot {
	at := map[[2]string]namedRoot{} // {key, pattern} → root
	for _, k := range keys {
		cands := roots
		if k.app {
			cands = appRoots
		}
		for _, r := range cands {
			at[[2]string{k.rule.Key, underRoot(r, k.sub)}] = namedRoot{path: CleanPath(r), app: k.app}
		}
	}
	out := make([]namedRoot, len(rules))
	for i := range rules {
		out[i] = at[[2]string{rules[i].Key, rules[i].Pattern}]
	}
	return out
}

// underRoot is the pattern a subpath names at root r (expandKey's).
func underRoot(r string, sub []string) string {
	if len(sub) == 0 {
		return CleanPath(r)
	}
	return CleanPath(r + "/" + strings.Join(sub, "/"))
}

// ancestorDenies expands an operator's required deny of a root token (a
// subpath key) at the anchors of each root where it names the root, a
// directory holding it or one inside it: a turn rooted inside the
// directory the key denies (":workspace_roots/vault" with the root at
// repo/vault), or at the parent of a key of two components (repo/ops
// under ":workspace_roots/ops/vault"), is denied it as a turn rooted at
// repo is. roots are every root named (an app read root's anchors take
// the workspace keys too).
func ancestorDenies(rule PathRule, roots []namedRoot, floor func(string) string) []PathRule {
	k, ok := newRootKey(rule)
	if !ok || len(k.sub) == 0 {
		return nil
	}
	var out []PathRule
	for _, root := range roots {
		if !family(&k, root) {
			continue
		}
		comps := splitComps(root.path)
		for _, j := range anchors(root, comps, roots, []rootKey{k}, floor) {
			x := rule
			x.Pattern = underRoot("/"+strings.Join(comps[:j], "/"), k.sub)
			_, covers := k.at(comps, j)
			lit := x.Pattern
			if x.Glob {
				lit = literalPrefix(x.Pattern)
			}
			if (covers || PathWithin(lit, root.path) || x.Glob && PathWithin(root.path, lit)) && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// literalPrefix is the leading components of a glob pattern that hold no
// wildcard ("/" when the first does).
func literalPrefix(pat string) string {
	end := 0
	for k := 1; k <= len(pat); k++ {
		if k < len(pat) && pat[k] != '/' {
			continue
		}
		if strings.ContainsAny(pat[end+1:k], "*?[\\") {
			break
		}
		end = k
	}
	if end == 0 {
		return "/"
	}
	return pat[:end]
}

// ruleIndex finds the rules that match a path without trying every rule:
// a path rule matches a path only at one of its ancestors (or itself), and
// a glob only below its literal leading components.
type ruleIndex struct {
	rules     []PathRule
	byPattern map[string][]int
	globs     map[string][]int // by literal prefix
}

func newRuleIndex(rules []PathRule) *ruleIndex {
	x := &ruleIndex{rules: rules, byPattern: map[string][]int{}, globs: map[string][]int{}}
	for i := range rules {
		if rules[i].Glob {
			pre := literalPrefix(rules[i].Pattern)
			x.globs[pre] = append(x.globs[pre], i)
		} else {
			x.byPattern[rules[i].Pattern] = append(x.byPattern[rules[i].Pattern], i)
		}
	}
	return x
}

// cover is the level the profile's rules other than the roots' give the
// root p: a deny that decides p (whatever its specificity: the profile
// denies it, wherever the runtime roots a turn), an overlay, or a read
// that overrides a write around it (a read-only carve-out of a writable
// tree); and, against a write from the root's outermost anchor fl (the
// allowed root it lies in, or a root named above it; p itself without
// either), any deny, read or overlay that wins over that write at p. A
// read less specific than that write (":minimal", ":root" read) does not
// lower the root: the root is there to be written.
func (x *ruleIndex) cover(p, fl string) int {
	var comps []string
	var best *PathRule
	spec, writeCovers := -1, false
	consider := func(r *PathRule, s int) {
		writeCovers = writeCovers || r.Access == AccessWrite
		if best == nil || s > spec || s == spec && tieRank(r) > tieRank(best) {
			best, spec = r, s
		}
	}
	at := func(pre string, n int) {
		for _, i := range x.byPattern[pre] {
			consider(&x.rules[i], n)
		}
		for _, i := range x.globs[pre] {
			if comps == nil {
				comps = splitComps(p)
			}
			if s, ok := x.rules[i].match(comps); ok {
				consider(&x.rules[i], s)
			}
		}
	}
	at("/", 0)
	n := 0 // components of the prefix p[:k]
	for k := 1; k <= len(p) && p != "/"; k++ {
		if k < len(p) && p[k] != '/' {
			continue
		}
		n++
		at(p[:k], n)
	}
	c := capNone
	if best != nil {
		if l := levelOf(best); l != capRead || writeCovers {
			c = l
		}
		anchor := PathRule{Access: AccessWrite}
		if s := len(splitComps(fl)); spec > s || spec == s && tieRank(best) > tieRank(&anchor) {
			c = min(c, levelOf(best))
		}
	}
	return c
}

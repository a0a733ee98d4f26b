package domain

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// A profile's keys under :workspace_roots, :project_roots and
// :app_read_roots are expanded at the roots the turn's starter names: the
// runtime, whose credential the agent holds. "The most specific rule
// wins" then let a root outrank the profile's own rules (the forty-eighth
// review): a project root inside a directory the profile denies
// ("secrets" = deny, "**/private" = deny) made a write rule more specific
// than the deny, one named at a read-only carve-out (".github/workflows" =
// read inside the writable root) tied with it and write wins a tie, and a
// workspace root chosen inside the denied directory itself expanded the
// deny below it. capRoots keeps a root from granting more than the
// profile gives where it lies.

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

// at reports whether the key expanded at the ancestor comps[:j] of a root
// matches the root (comps), and with which specificity (PathRule.match).
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

// first is the first component of the key's subpath that is not "**", or
// "" when it has none.
func (k *rootKey) first() string {
	for _, c := range k.sub {
		if c != "**" {
			return c
		}
	}
	return ""
}

// Cap levels, lowest first: what a root's rule is lowered to.
const (
	capDeny = iota
	capRead
	capOverlay
	capNone
)

// capRoots lowers the rules expanded from each root to what the profile
// gives there, in two ways:
//
//   - The root tokens' own subpath keys as they would be expanded at an
//     ancestor of the root: a root inside what "secrets" = deny or
//     ".github/workflows" = read names below an ancestor gets that, unless
//     the keys at that ancestor reopen it.
//   - The profile's other rules (paths, globs, other roots' rules) that
//     decide the rule's path explicitly: a deny there makes it a deny; a
//     read that overrides a write covering the path (a read-only carve-out
//     inside a writable tree) makes it read; an overlay an overlay. Where
//     no other rule matches, or only reads do (":minimal", ":root" read),
//     the root's rules stand: that is what a root is for.
//
// Caps only lower, so repeating the second until nothing changes ends.
// keys are the profile's root-token keys, unexpanded.
func capRoots(rules []PathRule, keys []PathRule, roots, appRoots []string) {
	var rk []rootKey
	for _, k := range keys {
		if p, ok := newRootKey(k); ok {
			rk = append(rk, p)
		}
	}
	from := expandedFrom(rules, rk, roots, appRoots)
	ancestorCaps := map[[2]string]int{}
	for i := range rules {
		if from[i] == "" {
			continue
		}
		app := "w"
		if k, _ := newRootKey(rules[i]); k.app {
			app = "a"
		}
		c, ok := ancestorCaps[[2]string{from[i], app}]
		if !ok {
			c = ancestorCap(splitComps(from[i]), rk, app == "a")
			ancestorCaps[[2]string{from[i], app}] = c
		}
		lower(&rules[i], c)
	}
	idx := newRuleIndex(rules, from)
	var order []int
	for i := range rules {
		if from[i] != "" {
			order = append(order, i)
		}
	}
	// Outer paths first, so that a chain of nested roots settles in a pass.
	sort.SliceStable(order, func(a, b int) bool { return len(rules[order[a]].Pattern) < len(rules[order[b]].Pattern) })
	for changed := true; changed; {
		changed = false
		for _, i := range order {
			r := &rules[i]
			if r.Access == AccessDeny {
				continue
			}
			at := r.Pattern
			if r.Glob {
				at = from[i]
			}
			b, writeCovers := idx.resolve(at, from[i])
			if b < 0 {
				continue
			}
			c := capNone
			switch d := &rules[b]; {
			case d.Access == AccessDeny:
				c = capDeny
			case d.Overlay:
				c = capOverlay
			case d.Access == AccessRead && writeCovers:
				c = capRead
			}
			changed = lower(r, c) || changed
		}
	}
}

// lower lowers r to the cap level c and reports whether it changed.
func lower(r *PathRule, c int) bool {
	before := *r
	switch {
	case c == capDeny:
		r.Access, r.Overlay = AccessDeny, false
	case c == capRead && r.Access == AccessWrite:
		r.Access = AccessRead
	case c == capOverlay && r.Access == AccessWrite:
		r.Access, r.Overlay = AccessRead, true
	}
	return *r != before
}

// expandedFrom returns, for each rule, the root it was expanded from (""
// for a rule of no root token).
func expandedFrom(rules []PathRule, keys []rootKey, roots, appRoots []string) []string {
	at := map[[2]string]string{} // {key, pattern} → root
	for _, k := range keys {
		cands := roots
		if k.app {
			cands = appRoots
		}
		for _, r := range cands {
			at[[2]string{k.rule.Key, underRoot(r, k.sub)}] = CleanPath(r)
		}
	}
	out := make([]string, len(rules))
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
	p := r
	for _, c := range sub {
		p += "/" + c
	}
	return CleanPath(p)
}

// ancestorCap is the lowest level the keys of one family (the app roots',
// or the workspace and project roots') give a root (comps) when expanded at
// one of its proper ancestors where a subpath key decides it. Only the
// ancestors where some key's first component can match are tried (and
// "/"): elsewhere no subpath key names the root.
func ancestorCap(comps []string, keys []rootKey, app bool) int {
	c := capNone
	tried := map[int]bool{}
	try := func(j int) {
		if tried[j] || j >= len(comps) {
			return
		}
		tried[j] = true
		var best *rootKey
		spec := -1
		for i := range keys {
			k := &keys[i]
			if k.app != app {
				continue
			}
			s, ok := k.at(comps, j)
			if ok && (best == nil || s > spec || s == spec && tieRank(&k.rule) > tieRank(&best.rule)) {
				best, spec = k, s
			}
		}
		if best == nil || len(best.sub) == 0 {
			return
		}
		switch {
		case best.rule.Access == AccessDeny:
			c = min(c, capDeny)
		case best.rule.Overlay:
			c = min(c, capOverlay)
		case best.rule.Access == AccessRead:
			c = min(c, capRead)
		}
	}
	for i := range keys {
		if keys[i].app == app {
			for _, j := range keys[i].starts(comps) {
				try(j)
			}
		}
	}
	return c
}

// starts returns the ancestors comps[:j] of a root at which the key could
// name the root or a directory holding it: where the first component of
// its subpath that is not "**" matches comps[j] (after a leading "**" any
// ancestor above would do too, and comps[:j] is the nearest).
func (k *rootKey) starts(comps []string) []int {
	f := k.first()
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

// ancestorDenies expands an operator's required deny of a root token (a
// subpath key) at the ancestors of each root where it names the root or a
// directory holding it: a turn rooted inside the directory the key denies
// (":workspace_roots/vault" with the root at repo/vault) is denied it as a
// turn rooted at repo is.
func ancestorDenies(rule PathRule, roots []string) []PathRule {
	k, ok := newRootKey(rule)
	if !ok || len(k.sub) == 0 {
		return nil
	}
	var out []PathRule
	for _, r := range roots {
		comps := splitComps(CleanPath(r))
		for _, j := range k.starts(comps) {
			if _, ok := k.at(comps, j); !ok {
				continue
			}
			x := rule
			x.Pattern = underRoot("/"+strings.Join(comps[:j], "/"), k.sub)
			if !slices.ContainsFunc(out, func(o PathRule) bool { return o.Pattern == x.Pattern }) {
				out = append(out, x)
			}
		}
	}
	return out
}

// ruleIndex finds the rules that match a path without trying every rule:
// a path rule matches a path only at one of its ancestors (or itself), and
// a glob only below its literal leading components, so both are looked up
// by those along the path (a root's glob keys are one glob per root).
type ruleIndex struct {
	rules     []PathRule
	from      []string
	byPattern map[string][]int
	globs     map[string][]int // by literal prefix
}

func newRuleIndex(rules []PathRule, from []string) *ruleIndex {
	x := &ruleIndex{rules: rules, from: from, byPattern: map[string][]int{}, globs: map[string][]int{}}
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

// resolve decides the clean path p as ResolvePathRules does, over the
// rules not expanded from root skip, and reports whether a write rule
// among them matches p. It returns the deciding rule's index, or -1.
func (x *ruleIndex) resolve(p, skip string) (best int, writeCovers bool) {
	best, spec := -1, -1
	consider := func(i, s int) {
		if x.from[i] == skip {
			return
		}
		r := &x.rules[i]
		writeCovers = writeCovers || r.Access == AccessWrite
		if best < 0 || s > spec || s == spec && (tieRank(r) > tieRank(&x.rules[best]) || tieRank(r) == tieRank(&x.rules[best]) && i < best) {
			best, spec = i, s
		}
	}
	var comps []string
	at := func(pre string, n int) {
		for _, i := range x.byPattern[pre] {
			consider(i, n)
		}
		for _, i := range x.globs[pre] {
			if comps == nil {
				comps = splitComps(p)
			}
			if s, ok := x.rules[i].match(comps); ok {
				consider(i, s)
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
	return best, writeCovers
}

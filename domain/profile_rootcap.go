package domain

import "slices"

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

// expandedFrom returns, for each rule, the root it was expanded from (""
// for a rule of no root token).
func expandedFrom(rules []PathRule, roots, appRoots []string) []string {
	out := make([]string, len(rules))
	for i := range rules {
		fk, ok := rootKey(rules[i].Key)
		if !ok {
			continue
		}
		cands := roots
		if fk.Token == TokenAppReadRoots {
			cands = appRoots
		}
		for _, r := range cands {
			if underRoot(r, fk.Sub) == rules[i].Pattern {
				out[i] = CleanPath(r)
				break
			}
		}
	}
	return out
}

// rootKey parses k when it is a key of a root token.
func rootKey(k string) (FilesystemKey, bool) {
	fk, _ := ParseFilesystemKey(k, AccessRead)
	return fk, slices.Contains(rootTokens, fk.Token)
}

// underRoot is the pattern a root token's subpath sub names at root r.
func underRoot(r, sub string) string {
	if sub == "" {
		return CleanPath(r)
	}
	return CleanPath(r + "/" + sub)
}

// capRoots lowers the rules expanded from each root to what the profile
// gives there, in two ways:
//
//   - The profile's other rules (paths, globs, other roots' rules) that
//     decide the rule's path explicitly: a deny there makes it a deny; a
//     read that overrides a write covering the path (a read-only carve-out
//     inside a writable tree) makes it read. Where no other rule matches,
//     or only reads do (":minimal", ":root" read), the root's rules stand:
//     that is what a root is for.
//   - The root tokens' own subpath keys as they would be expanded at each
//     ancestor of the root: a root inside what "secrets" = deny or
//     ".github/workflows" = read names below an ancestor gets that, unless
//     the keys at that ancestor reopen it.
//
// Caps only lower, so repeating until nothing changes ends.
func capRoots(rules []PathRule, from []string, keys []PathRule) {
	for i := range rules {
		if from[i] == "" {
			continue
		}
		for _, a := range ancestors(from[i]) {
			if d := ResolvePathRules(expandAt(keys, a, rules[i].Key), from[i]); d.Rule != nil && d.Rule.Key != rootTokenOf(d.Rule.Key) {
				capRule(&rules[i], d)
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range rules {
			if from[i] == "" || rules[i].Access == AccessDeny {
				continue
			}
			at := rules[i].Pattern
			if rules[i].Glob {
				at = from[i]
			}
			var others []PathRule
			for j := range rules {
				if from[j] != from[i] {
					others = append(others, rules[j])
				}
			}
			d := ResolvePathRules(others, at)
			if d.Rule == nil || d.Access == AccessRead && !d.Rule.Overlay && !writeCovers(others, at) {
				continue
			}
			before := rules[i]
			capRule(&rules[i], d)
			changed = changed || rules[i] != before
		}
	}
}

// capRule lowers r to what d decided, when that is less.
func capRule(r *PathRule, d PathDecision) {
	switch {
	case d.Access == AccessDeny:
		r.Access, r.Overlay = AccessDeny, false
	case d.Rule.Overlay && r.Access == AccessWrite:
		r.Access, r.Overlay = AccessRead, true
	case d.Access == AccessRead && r.Access == AccessWrite:
		r.Access = AccessRead
	}
}

// writeCovers reports whether a write rule of rules matches p.
func writeCovers(rules []PathRule, p string) bool {
	comps := splitComps(p)
	for i := range rules {
		if rules[i].Access == AccessWrite {
			if _, ok := rules[i].match(comps); ok {
				return true
			}
		}
	}
	return false
}

// ancestors returns the proper ancestors of the clean path p, "/" first.
func ancestors(p string) []string {
	out := []string{"/"}
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	if p == "/" {
		return nil
	}
	return out
}

// rootTokenOf is the token of a root key (":workspace_roots/secrets" →
// ":workspace_roots").
func rootTokenOf(k string) string {
	fk, _ := ParseFilesystemKey(k, AccessRead)
	return fk.Token
}

// expandAt expands the keys of the same root token as key at root a (keys
// holds one rule per key, its pattern unexpanded).
func expandAt(keys []PathRule, a, key string) []PathRule {
	tok := rootTokenOf(key)
	var out []PathRule
	for _, k := range keys {
		fk, ok := rootKey(k.Key)
		if !ok || fk.Token != tok && !(isRootsKey(k.Key) && isRootsKey(key)) {
			continue
		}
		k.Pattern = underRoot(a, fk.Sub)
		out = append(out, k)
	}
	return out
}

// ancestorDenies expands a root token's deny key (an operator's required
// deny) at every ancestor of each root where it would name the root or a
// directory holding it: a turn rooted inside the directory the key denies
// (":workspace_roots/vault" with the root at repo/vault) is denied it as a
// turn rooted at repo is.
func ancestorDenies(fk FilesystemKey, rule PathRule, roots []string) []PathRule {
	if fk.Sub == "" {
		return nil
	}
	var out []PathRule
	for _, r := range roots {
		comps := splitComps(CleanPath(r))
		for _, a := range ancestors(CleanPath(r)) {
			x := rule
			x.Pattern = underRoot(a, fk.Sub)
			if _, ok := x.match(comps); ok && !slices.ContainsFunc(out, func(o PathRule) bool { return o.Pattern == x.Pattern }) {
				out = append(out, x)
			}
		}
	}
	return out
}

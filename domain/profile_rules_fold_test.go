package domain

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// exactResolve is ResolvePathRules with every rule matched byte for byte:
// the matcher before the hundred-and-thirty-sixth review, the reference
// the folded matcher may only narrow.
func exactResolve(rules []PathRule, p string) Access {
	comps := splitComps(CleanPath(p))
	var best *PathRule
	spec := -1
	for i := range rules {
		r := &rules[i]
		s, ok := r.match(comps)
		if !ok {
			continue
		}
		if r.Locked {
			return AccessDeny
		}
		if best == nil || s > spec || (s == spec && tieRank(r) > tieRank(best)) {
			best, spec = r, s
		}
	}
	if best == nil || best.Access != AccessRead && best.Access != AccessWrite {
		return AccessDeny
	}
	return best.Access
}

// TestResolvePathRulesDenyInAnyCase: a deny rule matches a path that
// differs from it only in letter case, unless a rule matching the path
// exactly is strictly more specific; a grant matches exactly only.
func TestResolvePathRulesDenyInAnyCase(t *testing.T) {
	rules := func(rs ...PathRule) []PathRule { return rs }
	w := PathRule{Pattern: "/w", Access: AccessWrite}
	deny := func(p string, glob bool) PathRule { return PathRule{Pattern: p, Glob: glob, Access: AccessDeny} }
	write := func(p string) PathRule { return PathRule{Pattern: p, Access: AccessWrite} }
	for _, c := range []struct {
		name  string
		rules []PathRule
		path  string
		want  Access
	}{
		{"a glob deny in another case", rules(w, deny("/w/**/*.env", true)), "/w/prod.ENV", AccessDeny},
		{"a path deny in another case", rules(w, deny("/w/secrets", false)), "/w/SECRETS/key", AccessDeny},
		{"a deny spelt in upper case", rules(w, deny("/w/Secrets", false)), "/w/secrets/key", AccessDeny},
		{"a locked deny in another case wins outright", rules(w, write("/w/SECRETS/public"), PathRule{Pattern: "/w/secrets", Access: AccessDeny, Locked: true}), "/w/SECRETS/public/x", AccessDeny},
		{"a folded deny beats a less specific exact grant", rules(w, write("/w/SECRETS"), deny("/w/secrets/key", false)), "/w/SECRETS/KEY", AccessDeny},
		{"a folded deny wins a tie", rules(w, write("/w/SECRETS"), deny("/w/secrets", false)), "/w/SECRETS/x", AccessDeny},
		{"a more specific exact grant keeps its path", rules(w, deny("/w/secrets", false), write("/w/SECRETS/public")), "/w/SECRETS/public/x", AccessWrite},
		{"a grant does not fold", rules(write("/w/src")), "/w/SRC/main.go", AccessDeny},
		{"a grant does not fold under a wider one", rules(PathRule{Pattern: "/w", Access: AccessRead}, write("/w/src")), "/w/SRC/main.go", AccessRead},
		{"an exact deny still denies", rules(w, deny("/w/secrets", false)), "/w/secrets/key", AccessDeny},
		{"another name is not denied", rules(w, deny("/w/**/*.env", true)), "/w/prod.envx", AccessWrite},
		{"nor another directory", rules(w, deny("/w/secrets", false)), "/w/secretsx/key", AccessWrite},
	} {
		if got := ResolvePathRules(c.rules, c.path).Access; got != c.want {
			t.Errorf("%s: %s under %+v: %s, want %s", c.name, c.path, c.rules, got, c.want)
		}
	}
}

// TestResolvePathRulesFoldProperties: for rules and paths drawn from a few
// names in mixed case, folding only narrows (the access is never more than
// the byte-for-byte matcher's), never changes a path and rules all in
// lower case, and a deny rule naming the path in any case denies it
// whatever else the rules say.
func TestResolvePathRulesFoldProperties(t *testing.T) {
	names := []string{"w", "secrets", "src", ".env", "a.env", "key"}
	comp := rapid.Custom(func(t *rapid.T) string {
		n := []byte(rapid.SampledFrom(names).Draw(t, "name"))
		for i := range n {
			if n[i] >= 'a' && n[i] <= 'z' && rapid.Bool().Draw(t, "upper") {
				n[i] -= 'a' - 'A'
			}
		}
		return string(n)
	})
	path := rapid.Custom(func(t *rapid.T) string {
		return "/" + strings.Join(rapid.SliceOfN(comp, 1, 4).Draw(t, "comps"), "/")
	})
	rule := rapid.Custom(func(t *rapid.T) PathRule {
		r := PathRule{Pattern: path.Draw(t, "pattern"), Access: rapid.SampledFrom([]Access{AccessDeny, AccessRead, AccessWrite}).Draw(t, "access")}
		if rapid.IntRange(0, 3).Draw(t, "glob") == 0 {
			r.Pattern, r.Glob = "/**/*"+strings.TrimPrefix(r.Pattern[strings.LastIndex(r.Pattern, "/"):], "/"), true
		}
		r.Locked = r.Access == AccessDeny && rapid.IntRange(0, 5).Draw(t, "locked") == 0
		return r
	})
	rapid.Check(t, func(t *rapid.T) {
		rs := rapid.SliceOfN(rule, 0, 5).Draw(t, "rules")
		p := path.Draw(t, "path")
		got := ResolvePathRules(rs, p).Access
		if exact := exactResolve(rs, p); got.rank() > exact.rank() {
			t.Fatalf("%s: %s, more than the exact matcher's %s", p, got, exact)
		}
		lower := make([]PathRule, len(rs))
		for i, r := range rs {
			r.Pattern = strings.ToLower(r.Pattern)
			lower[i] = r
		}
		if got, exact := ResolvePathRules(lower, strings.ToLower(p)).Access, exactResolve(lower, strings.ToLower(p)); got != exact {
			t.Fatalf("all in lower case, %s: %s, the exact matcher's %s", p, got, exact)
		}
		variant := []byte(p)
		for i := range variant {
			if rapid.Bool().Draw(t, "flip") {
				switch c := variant[i]; {
				case c >= 'a' && c <= 'z':
					variant[i] -= 'a' - 'A'
				case c >= 'A' && c <= 'Z':
					variant[i] += 'a' - 'A'
				}
			}
		}
		withDeny := append(rs[:len(rs):len(rs)], PathRule{Pattern: string(variant), Access: AccessDeny})
		if got := ResolvePathRules(withDeny, p).Access; got != AccessDeny {
			t.Fatalf("%s under a deny of %s: %s", p, variant, got)
		}
	})
}

// TestPathWithinFold: PathWithin with components compared in any case,
// on component boundaries.
func TestPathWithinFold(t *testing.T) {
	for _, c := range []struct {
		path, root string
		want       bool
	}{
		{"/w/.VSCODE/tasks.json", "/w/.vscode", true},
		{"/w/.ENVRC", "/w/.envrc", true},
		{"/w/.envrc", "/w/.envrc", true},
		{"/W/.Mvn/JVM.config", "/w/.mvn/jvm.config", true},
		{"/w/.envrc2", "/w/.envrc", false},
		{"/w/.vscodex/tasks.json", "/w/.vscode", false},
		{"/w", "/w/.vscode", false},
		{"/x/.vscode", "/", true},
	} {
		if got := PathWithinFold(c.path, c.root); got != c.want {
			t.Errorf("PathWithinFold(%q, %q) = %v, want %v", c.path, c.root, got, c.want)
		}
	}
}

// TestPathWithinFoldAsSplit: PathWithinFold (which walks the components
// without splitting) answers as comparing the split components does.
func TestPathWithinFoldAsSplit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		comp := rapid.SampledFrom([]string{"a", "A", ".git", ".GIT", "ſ", "s", "S", "ß", "ss", "x", "", "ﬆ", "st"})
		mk := func(label string) string {
			cs := rapid.SliceOfN(comp, 0, 4).Draw(t, label)
			return "/" + strings.Join(cs, "/")
		}
		path, root := mk("path"), mk("root")
		pc, rc := splitComps(path), splitComps(root)
		want := PathWithin(path, root)
		if !want && len(rc) <= len(pc) {
			want = true
			for i := range rc {
				if !FoldEqual(pc[i], rc[i]) {
					want = false
				}
			}
		}
		if got := PathWithinFold(path, root); got != want {
			t.Fatalf("PathWithinFold(%q, %q) = %v, split gives %v", path, root, got, want)
		}
	})
}

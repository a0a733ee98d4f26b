package domain

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func carveSnap(rules []PathRule, entries []FilesystemEntry) *TurnExecutionSecuritySnapshot {
	s := &TurnExecutionSecuritySnapshot{}
	s.Sandbox.Filesystem.Rules = rules
	s.Sandbox.Filesystem.Entries = entries
	return s
}

// TestBindCarveLinksCopiesWhereTheLinkLed: a deny written through a link
// (ws/vault -> ws/.vault-data) is copied, entry and rule, where it led; so
// is a glob whose literal prefix passes the link and a read narrowing a
// writable root. A protected path with write access (a pin), a grant, and a
// read copy where the rules do not grant write are not copied; a carried
// target that is the path itself adds nothing.
func TestBindCarveLinksCopiesWhereTheLinkLed(t *testing.T) {
	s := carveSnap([]PathRule{
		{Key: ".", Pattern: "/ws", Access: AccessWrite},
		{Key: "vault", Pattern: "/ws/vault", Access: AccessDeny},
		{Key: "keys/**/*.pem", Pattern: "/ws/keys/**/*.pem", Glob: true, Access: AccessDeny},
		{Key: "conf", Pattern: "/ws/conf", Access: AccessRead},
		{Key: "docs", Pattern: "/ws/docs", Access: AccessRead},
		{Key: "/ro", Pattern: "/ro", Access: AccessRead},
	}, []FilesystemEntry{
		{Kind: PathWorkspaceRoot, Path: "/ws", ResolvedPath: "/ws", Access: AccessWrite},
		{Kind: PathExplicit, Path: "/ws/vault", ResolvedPath: "/ws/vault", Access: AccessDeny},
		{Kind: PathProtected, Path: "/ws/.git", ResolvedPath: "/ws/.git", Access: AccessWrite},
		{Kind: PathProtected, Path: "/ws/conf", ResolvedPath: "/ws/conf", Access: AccessRead},
	})
	want := []string{"/ws/vault", "/ws/keys", "/ws/conf", "/ws/docs", "/ro"}
	slices.Sort(want)
	if got := CarveLinkPaths(s); !slices.Equal(got, want) {
		t.Fatalf("CarveLinkPaths = %v, want %v", got, want)
	}
	BindCarveLinks(s, map[string][]string{
		"/ws/vault": {"/ws/.vault-data"},
		"/ws/keys":  {"/ws/real-keys"},
		"/ws/conf":  {"/ws/dotfiles/conf", "/ws/conf"},
		"/ws/docs":  {"/ro/docs"}, // read-only already: no copy
		"/ws/.git":  {"/elsewhere/git"},
		"/ws":       {"/other"},
	})
	fs := &s.Sandbox.Filesystem
	var copies []string
	for _, e := range fs.Entries {
		if e.LinkedFrom != "" {
			copies = append(copies, "entry "+e.ResolvedPath+" "+string(e.Access)+" from "+e.LinkedFrom)
		}
	}
	for _, r := range fs.Rules {
		if r.LinkedFrom != "" {
			copies = append(copies, "rule "+r.Pattern+" "+string(r.Access)+" from "+r.LinkedFrom)
		}
	}
	slices.Sort(copies)
	wantCopies := []string{
		"entry /ws/.vault-data deny from /ws/vault",
		"entry /ws/dotfiles/conf read from /ws/conf",
		"rule /ws/.vault-data deny from /ws/vault",
		"rule /ws/dotfiles/conf read from /ws/conf",
		"rule /ws/real-keys/**/*.pem deny from /ws/keys",
	}
	if !slices.Equal(copies, wantCopies) {
		t.Fatalf("copies:\n%v\nwant\n%v", copies, wantCopies)
	}
	if got := ResolvePathRules(fs.Rules, "/ws/.vault-data/db.key").Access; got != AccessDeny {
		t.Errorf("where the deny led is %s to the rules", got)
	}
	if got := AccessAt(fs, "/ws/.vault-data/db.key"); got != AccessDeny {
		t.Errorf("where the deny led is %s to the entries", got)
	}
	if got := AccessAt(fs, "/ws/app/main.go"); got != AccessWrite {
		t.Errorf("control: the workspace is %s to the entries", got)
	}
	// Carried again (a profile change), nothing is copied twice.
	n, m := len(fs.Entries), len(fs.Rules)
	BindCarveLinks(s, CarveLinksOf(s))
	if len(fs.Entries) != n || len(fs.Rules) != m {
		t.Errorf("binding the carried links again added copies: %d/%d entries, %d/%d rules", len(fs.Entries), n, len(fs.Rules), m)
	}
	if got := CarveLinkPaths(s); !slices.Equal(got, want) {
		t.Errorf("CarveLinkPaths after binding = %v, want %v (copies are not resolved again)", got, want)
	}
}

// TestBindCarveLinksNeverWidens: whatever the rules, entries and links, no
// path is granted more by the rules or by the entries after the copies are
// bound than before.
func TestBindCarveLinksNeverWidens(t *testing.T) {
	names := []string{"/w", "/w/a", "/w/a/b", "/w/c", "/w/c/d", "/x", "/x/y"}
	accs := []Access{AccessRead, AccessWrite, AccessDeny}
	kinds := []PathKind{PathExplicit, PathProtected, PathSensitive, PathWorkspaceRoot}
	rapid.Check(t, func(t *rapid.T) {
		var rules []PathRule
		for range rapid.IntRange(0, 6).Draw(t, "nrules") {
			p := rapid.SampledFrom(names).Draw(t, "rule")
			r := PathRule{Key: p, Pattern: p, Access: rapid.SampledFrom(accs).Draw(t, "racc"), Locked: rapid.Bool().Draw(t, "locked")}
			if rapid.Bool().Draw(t, "glob") {
				r.Pattern, r.Glob = p+"/**/b", true
			}
			rules = append(rules, r)
		}
		var entries []FilesystemEntry
		for range rapid.IntRange(0, 6).Draw(t, "nentries") {
			p := rapid.SampledFrom(names).Draw(t, "entry")
			entries = append(entries, FilesystemEntry{Kind: rapid.SampledFrom(kinds).Draw(t, "kind"), Path: p, ResolvedPath: p,
				Access: rapid.SampledFrom(accs).Draw(t, "eacc")})
		}
		links := map[string][]string{}
		for range rapid.IntRange(0, 4).Draw(t, "nlinks") {
			from := rapid.SampledFrom(names).Draw(t, "from")
			links[from] = append(links[from], rapid.SampledFrom(names).Draw(t, "to"))
		}
		before := carveSnap(slices.Clone(rules), slices.Clone(entries))
		after := carveSnap(rules, entries)
		BindCarveLinks(after, links)
		for _, p := range append(slices.Clone(names), "/w/a/b/c", "/x/y/b", "/w/c/b") {
			if a, b := ResolvePathRules(after.Sandbox.Filesystem.Rules, p).Access, ResolvePathRules(before.Sandbox.Filesystem.Rules, p).Access; a.rank() > b.rank() {
				t.Fatalf("the rules grant %s at %s after binding, %s before", a, p, b)
			}
			if a, b := AccessAt(&after.Sandbox.Filesystem, p), AccessAt(&before.Sandbox.Filesystem, p); a.rank() > b.rank() {
				t.Fatalf("the entries grant %s at %s after binding, %s before", a, p, b)
			}
		}
	})
}

// TestBindCarveLinksEscapesAGlobsTarget: a glob's copy where its literal
// prefix led takes the target's name literally (a directory named
// ".vault[1]" is no character class), and CarveLinksOf reads it back.
func TestBindCarveLinksEscapesAGlobsTarget(t *testing.T) {
	for _, target := range []string{"/ws/.vault[1]", "/ws/a*b", "/ws/q?", `/ws/back\slash`, "/ws/plain"} {
		s := carveSnap([]PathRule{
			{Key: ".", Pattern: "/ws", Access: AccessWrite},
			{Key: "vault/*.key", Pattern: "/ws/vault/*.key", Glob: true, Access: AccessDeny},
		}, nil)
		BindCarveLinks(s, map[string][]string{"/ws/vault": {target}})
		if got := ResolvePathRules(s.Sandbox.Filesystem.Rules, target+"/db.key").Access; got != AccessDeny {
			t.Errorf("%s/db.key is %s after the copy", target, got)
		}
		if got := ResolvePathRules(s.Sandbox.Filesystem.Rules, target+"/db.txt").Access; got != AccessWrite {
			t.Errorf("control: %s/db.txt is %s after the copy", target, got)
		}
		if got := CarveLinksOf(s); !slices.Equal(got["/ws/vault"], []string{target}) {
			t.Errorf("CarveLinksOf = %v, want %s", got, target)
		}
	}
}

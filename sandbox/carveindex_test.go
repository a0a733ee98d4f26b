package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"turnstile/domain"
)

// TestCarveIndexAgreesWithScan: the carve-outs the index finds covering a
// path are exactly those domain.PathWithin picks out of all of them, in
// the same order, for paths and carve-outs of any spelling ("", "/",
// doubled and trailing slashes, names that share a prefix).
func TestCarveIndexAgreesWithScan(t *testing.T) {
	part := rapid.SampledFrom([]string{"", "/", "a", "ab", "b", "//", "a/", "/a", "/ab", "/a/b", "/a/b/", "/ab/c", "/a//b"})
	rapid.Check(t, func(t *rapid.T) {
		mk := func(label string) string {
			s := ""
			for _, p := range rapid.SliceOfN(part, 0, 4).Draw(t, label) {
				s += p
			}
			return s
		}
		v := &fsView{}
		for i, n := 0, rapid.IntRange(0, 12).Draw(t, "n"); i < n; i++ {
			v.carves = append(v.carves, fsRule{Path: mk("carve")})
		}
		v.indexCarves()
		p := mk("p")
		var want []int32
		for i, c := range v.carves {
			if domain.PathWithin(p, c.Path) {
				want = append(want, int32(i))
			}
		}
		got := v.covering(p, nil)
		if got == nil || !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("covering(%q) over %+v = %v, want %v", p, v.carves, got, want)
		}
		// A carve-out added after the index: it no longer stands.
		v.carves = append(v.carves, fsRule{Path: p})
		if v.covering(p, nil) != nil {
			t.Fatal("an index of fewer carve-outs was used")
		}
	})
}

// TestDecisionViewCarveIndexStands: the view a decision uses has an index
// that stands once it has served a few lookups (the fast path is taken,
// not only the scan), and a write
// below a protected item is refused through it while its sibling is
// allowed (the control).
func TestDecisionViewCarveIndexStands(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{".envrc": "x\n", "src/a.go": "x\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	d := approvableFS(s)
	v := d.view()
	// Indexed once it has served carveScansBeforeIndex lookups by
	// scanning (a spawn's view is dropped before that).
	for i := 0; i < carveScansBeforeIndex+1; i++ {
		if v.covering(ws+"/src/a.go", nil) != nil {
			if i < carveScansBeforeIndex {
				t.Fatalf("a view indexed at its lookup %d, before %d", i+1, carveScansBeforeIndex+1)
			}
		}
	}
	if len(v.carves) == 0 || v.covering(ws+"/src/a.go", nil) == nil {
		t.Fatalf("no standing index over %d carve-outs after %d lookups", len(v.carves), carveScansBeforeIndex+2)
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ws+"/.envrc", domain.AccessWrite, false); err == nil {
		t.Fatal("a write of the protected .envrc was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ws+"/src/a.go", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a write of src/a.go: %v", err)
	}
}

// TestProtectedInAnyCaseIndexAgreesWithScan: the protected item found in
// any letter case through the index is the one the scan of every
// carve-out finds, for paths and written paths of any spelling: upper
// and lower case, non-ASCII letters that fold to ASCII ones (the Kelvin
// sign, the long s), relative, unclean and "/" paths, reserved and
// writable items among them. Most items are drawn as ancestors of the
// paths asked about, in other cases, so that most draws find one.
func TestProtectedInAnyCaseIndexAgreesWithScan(t *testing.T) {
	comp := rapid.SampledFrom([]string{"a", "A", "k", "K", "\u212a", "ab", "aB", "s", "\u017f", ".", ".."})
	odd := rapid.SampledFrom([]string{"", "/", "a", "//", "/a/", "a/b", "/A//b"})
	rapid.Check(t, func(t *rapid.T) {
		path := func(label string) []string {
			return rapid.SliceOfN(comp, 0, 3).Draw(t, label)
		}
		join := func(cs []string) string { return "/" + strings.Join(cs, "/") }
		// An ancestor of cs (or cs) in other letter cases, or an odd path.
		near := func(cs []string, label string) string {
			if rapid.IntRange(0, 4).Draw(t, label+"odd") == 0 {
				return odd.Draw(t, label)
			}
			n := rapid.IntRange(0, len(cs)).Draw(t, label+"depth")
			out := slices.Clone(cs[:n])
			for i := range out {
				if rapid.Bool().Draw(t, label+"case") {
					out[i] = strings.ToUpper(out[i])
				}
			}
			return join(out)
		}
		canonC, lexicalC := path("canon"), path("lexical")
		v := &fsView{}
		for i, n := 0, rapid.IntRange(0, 6).Draw(t, "n"); i < n; i++ {
			r := fsRule{Path: near(canonC, "path"), Kind: domain.PathProtected, Access: domain.AccessRead}
			if rapid.Bool().Draw(t, "from") {
				r.From = near(lexicalC, "from")
			}
			switch rapid.IntRange(0, 7).Draw(t, "variant") {
			case 0:
				r.Reserved = true
			case 1:
				r.Access = domain.AccessWrite
			case 2:
				r.Kind = domain.PathExplicit
			}
			v.carves = append(v.carves, r)
		}
		canon, lexical := join(canonC), join(lexicalC)
		v.indexCarves()
		got := v.protectedInAnyCase(canon, lexical)
		v.carveIdx.Store(nil)
		want := v.protectedInAnyCase(canon, lexical)
		if got != want {
			t.Fatalf("protectedInAnyCase(%q, %q) over %+v: index %+v, scan %+v", canon, lexical, v.carves, got, want)
		}
	})
}

// TestViewLookupsMemoAgrees: a view's lookups with each path's facts kept
// once are the lookups made without (symlinks to directories and files,
// a dangling one and a loop among the workspace's paths).
func TestViewLookupsMemoAgrees(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{".envrc": "source_env lib/a.sh\n", "real/lib/a.sh": "x", ".vscode/tasks.json": "{}", "src/a.go": "x"})
	for _, l := range [][2]string{{"real/lib", ws + "/lib"}, {"nowhere", ws + "/dangling"}, {"loop", ws + "/loop"}, {"real", ws + "/.claude"}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	v := newFSView(&s.Sandbox.Filesystem)
	with, without := v.lookupsWith(map[string]linkFact{}), v.lookupsWith(nil)
	if len(without) < 100 || !slices.Equal(with, without) {
		t.Fatalf("lookups with the memo (%d) differ from those without (%d)", len(with), len(without))
	}
}

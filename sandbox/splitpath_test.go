package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSplitPathAsFields: splitPath is strings.FieldsFunc on '/' (the
// non-empty elements, in order) for paths of any spelling, and joinAs is
// joinPath, returning abs itself only when that is the joined path.
func TestSplitPathAsFields(t *testing.T) {
	part := rapid.SampledFrom([]string{"", "/", "//", "a", "bc", ".", "..", "a/", "/b", "é"})
	rapid.Check(t, func(t *rapid.T) {
		p := strings.Join(rapid.SliceOfN(part, 0, 6).Draw(t, "parts"), "")
		want := strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
		if got := splitPath(p); !slices.Equal(got, want) || len(want) == 0 && got != nil {
			t.Fatalf("splitPath(%q) = %q, want %q", p, got, want)
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		dir, base := filepath.Dir(p), filepath.Base(p)
		for _, pc := range []string{dir, "/x", "/", dir + "x"} {
			if got, want := joinAs(pc, dir, base, p), joinPath(pc, base); got != want {
				t.Fatalf("joinAs(%q, %q, %q, %q) = %q, want %q", pc, dir, base, p, got, want)
			}
		}
	})
}

// TestElementsPrefixAsJoin: elementsPrefix is "/" and the first n
// elements joined, for clean and unclean, absolute and relative paths.
func TestElementsPrefixAsJoin(t *testing.T) {
	part := rapid.SampledFrom([]string{"", "/", "//", "a", "bc", ".", "..", "a/", "/b", "*"})
	rapid.Check(t, func(t *rapid.T) {
		p := strings.Join(rapid.SliceOfN(part, 0, 6).Draw(t, "parts"), "")
		if rapid.Bool().Draw(t, "clean") {
			p = filepath.Clean("/" + p)
		}
		parts := splitPath(p)
		n := rapid.IntRange(0, len(parts)).Draw(t, "n")
		if got, want := elementsPrefix(p, parts, n), "/"+strings.Join(parts[:n], "/"); got != want {
			t.Fatalf("elementsPrefix(%q, %q, %d) = %q, want %q", p, parts, n, got, want)
		}
	})
}

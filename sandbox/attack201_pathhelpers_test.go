package sandbox

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack201_PathHelpersSameAsBefore (held): 0d0cee1e's splitPath,
// joinAs and elementsPrefix give what the code they replaced gave
// (strings.FieldsFunc on '/', joinPath(pc, filepath.Base(abs)),
// "/"+strings.Join(parts[:n], "/")) on random paths of '/', '.', 'a',
// 'b', invalid UTF-8 and multi-byte runes, clean or not.
func TestAttack201_PathHelpersSameAsBefore(t *testing.T) {
	alphabet := []string{"/", "/", "/", ".", "a", "b", "\xff", "é", "//", "..", "ſ"}
	rnd := rand.New(rand.NewPCG(201, 201))
	gen := func() string {
		var b strings.Builder
		for range rnd.IntN(12) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 200000 {
		p := gen()
		if rnd.IntN(2) == 0 {
			p = "/" + p
		}
		want := strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
		got := splitPath(p)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("splitPath(%q) = %q, FieldsFunc %q", p, got, want)
		}
		for n := 0; n <= len(got); n++ {
			if a, b := elementsPrefix(p, got, n), "/"+strings.Join(got[:n], "/"); a != b {
				t.Fatalf("elementsPrefix(%q, %d) = %q, Join %q", p, n, a, b)
			}
		}
		dir, base := filepath.Dir(p), filepath.Base(p)
		for _, pc := range []string{dir, gen(), "/", "/" + gen()} {
			if a, b := joinAs(pc, dir, base, p), joinPath(pc, base); a != b {
				t.Fatalf("joinAs(%q, %q, %q, %q) = %q, joinPath %q", pc, dir, base, p, a, b)
			}
		}
	}
}

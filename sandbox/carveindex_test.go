package sandbox

import (
	"slices"
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
// that stands (the fast path is taken, not only the scan), and a write
// below a protected item is refused through it while its sibling is
// allowed (the control).
func TestDecisionViewCarveIndexStands(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{".envrc": "x\n", "src/a.go": "x\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	d := approvableFS(s)
	v := d.view()
	if len(v.carves) == 0 || v.covering(ws+"/src/a.go", nil) == nil {
		t.Fatalf("no standing index over %d carve-outs", len(v.carves))
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ws+"/.envrc", domain.AccessWrite, false); err == nil {
		t.Fatal("a write of the protected .envrc was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ws+"/src/a.go", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a write of src/a.go: %v", err)
	}
}

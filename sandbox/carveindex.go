package sandbox

import (
	"iter"
	"slices"
	"strings"
	"unicode/utf8"

	"turnstile/domain"
)

// carveIndex files a finished view's carve-outs by path, so that the
// carve-outs covering a path are found by its ancestors (a map lookup
// each) instead of a scan of all of them: an auto_accept_edits view has
// hundreds, and the scans in access and shadow were a tenth of a file
// decision's CPU. It stands for the carves it was made from only (n and
// first): a view whose carve-outs changed after it scans them all again.
type carveIndex struct {
	n     int
	first *fsRule
	at    map[string][]int32
	// The protected read-only items (protectedInAnyCase's) by their paths
	// and their written paths (From, cleaned), in lower case where those
	// are clean absolute ASCII paths below "/"; the rest in foldAlways.
	// For such paths, domain.PathWithinFold is the lower-case paths'
	// PathWithin (ASCII folds byte for byte, and '/' stays where it is).
	foldAt, foldFrom map[string][]int32
	foldAlways       []int32
}

// carveScansBeforeIndex is how many lookups a built view answers by
// scanning its carve-outs before it indexes them. A spawn's views (the
// caller's plan and the helper's) look up a few paths and are dropped:
// indexing their hundreds of carve-outs cost more than those scans (13% of
// a view's build); a cached view serving decisions is indexed at once.
const carveScansBeforeIndex = 32

// indexCarves indexes v's carve-outs as they are now.
func (v *fsView) indexCarves() {
	ix := &carveIndex{n: len(v.carves), at: make(map[string][]int32, len(v.carves))}
	if len(v.carves) > 0 {
		ix.first = &v.carves[0]
	}
	ix.foldAt, ix.foldFrom = map[string][]int32{}, map[string][]int32{}
	for i := range v.carves {
		c := &v.carves[i]
		ix.at[c.Path] = append(ix.at[c.Path], int32(i))
		if c.Kind != domain.PathProtected || c.Access != domain.AccessRead || c.Reserved {
			continue
		}
		always := false
		if foldKeyed(c.Path) {
			k := strings.ToLower(c.Path)
			ix.foldAt[k] = append(ix.foldAt[k], int32(i))
		} else {
			always = true
		}
		if c.From != "" {
			if f := domain.CleanPath(c.From); foldKeyed(f) {
				k := strings.ToLower(f)
				ix.foldFrom[k] = append(ix.foldFrom[k], int32(i))
			} else {
				always = true
			}
		}
		if always {
			ix.foldAlways = append(ix.foldAlways, int32(i))
		}
	}
	v.carveIdx.Store(ix)
}

// foldKeyed reports whether p is a clean absolute ASCII path below "/".
func foldKeyed(p string) bool {
	return p != "/" && foldQueryable(p)
}

// foldQueryable reports whether p is a clean absolute ASCII path.
func foldQueryable(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			return false
		}
	}
	return domain.CleanPath(p) == p
}

// foldCandidates returns, in their order in v.carves, the indices of the
// protected read-only items that may cover canon (by their paths) or
// lexical (by their written paths) in any letter case: a superset of
// those protectedInAnyCase picks, appended to buf; nil when every item
// must be looked at (no standing index, or a path the keys cannot stand
// for).
func (v *fsView) foldCandidates(canon, lexical string, buf []int32) []int32 {
	ix := v.standingIndex()
	if ix == nil || !foldQueryable(canon) || !foldQueryable(lexical) {
		return nil
	}
	out := append(buf[:0], ix.foldAlways...)
	for _, q := range [2]struct {
		p string
		m map[string][]int32
	}{{canon, ix.foldAt}, {lexical, ix.foldFrom}} {
		lc := strings.ToLower(q.p)
		for i := 1; i < len(lc); i++ {
			if lc[i] == '/' {
				out = append(out, q.m[lc[:i]]...)
			}
		}
		out = append(out, q.m[lc]...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []int32{}
	}
	return out
}

// standingIndex returns v's carve index when it stands for v.carves as
// they are (the same array and length), or nil. A built view is indexed
// on its carveScansBeforeIndex-th lookup after its build (or after its
// index stopped standing); before that, and while it is being built, its
// lookups scan.
func (v *fsView) standingIndex() *carveIndex {
	if ix := v.carveIdx.Load(); ix.standsFor(v.carves) {
		return ix
	}
	if !v.built || v.carveScans.Add(1) <= carveScansBeforeIndex {
		return nil
	}
	v.indexCarves()
	v.carveScans.Store(0)
	if ix := v.carveIdx.Load(); ix.standsFor(v.carves) {
		return ix
	}
	return nil
}

// standsFor reports whether ix was made from carves as they are.
func (ix *carveIndex) standsFor(carves []fsRule) bool {
	return ix != nil && ix.n == len(carves) && (ix.n == 0 || ix.first == &carves[0])
}

// covering returns, in their order in v.carves, the indices of the
// carve-outs c for which domain.PathWithin(p, c.Path) holds (appended to
// buf), or nil when the index does not stand for v.carves.
func (v *fsView) covering(p string, buf []int32) []int32 {
	ix := v.standingIndex()
	if ix == nil {
		return nil
	}
	out := buf[:0]
	// domain.PathWithin(p, c): c is "/" and p absolute; or c is p; or c is
	// p up to one of its slashes (c == "" for the slash that begins it).
	if strings.HasPrefix(p, "/") {
		out = append(out, ix.at["/"]...)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && p[:i] != "/" {
			out = append(out, ix.at[p[:i]]...)
		}
	}
	if p != "/" {
		out = append(out, ix.at[p]...)
	}
	slices.Sort(out)
	if out == nil {
		out = []int32{} // not nil: the index stood, and nothing covers p
	}
	return out
}

// carvesAmong yields the carve-outs cov names (covering's answer), or all
// of them when cov is nil (no index): each with its position in cov, or
// in v.carves (carveAt).
func (v *fsView) carvesAmong(cov []int32) iter.Seq2[int, fsRule] {
	return func(yield func(int, fsRule) bool) {
		if cov == nil {
			for i, c := range v.carves {
				if !yield(i, c) {
					return
				}
			}
			return
		}
		for i, k := range cov {
			if !yield(i, v.carves[k]) {
				return
			}
		}
	}
}

// carveAt is the index in v.carves of the i-th of carvesAmong(cov).
func (v *fsView) carveAt(cov []int32, i int) int {
	if cov == nil {
		return i
	}
	return int(cov[i])
}

package sandbox

import (
	"iter"
	"slices"
	"strings"
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
}

// indexCarves indexes v's carve-outs as they are now (the end of a build).
func (v *fsView) indexCarves() {
	ix := &carveIndex{n: len(v.carves), at: make(map[string][]int32, len(v.carves))}
	if len(v.carves) > 0 {
		ix.first = &v.carves[0]
	}
	for i := range v.carves {
		ix.at[v.carves[i].Path] = append(ix.at[v.carves[i].Path], int32(i))
	}
	v.carveIdx = ix
}

// covering returns, in their order in v.carves, the indices of the
// carve-outs c for which domain.PathWithin(p, c.Path) holds (appended to
// buf), or nil and false when the index does not stand for v.carves.
func (v *fsView) covering(p string, buf []int32) []int32 {
	ix := v.carveIdx
	if ix == nil || ix.n != len(v.carves) || ix.n > 0 && ix.first != &v.carves[0] {
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

package sandbox

import "strings"

// sensitiveIndex picks the sensitive rules that can match a path by the
// path's first element, so that a decision does not try every rule: a
// snapshot carries a few hundred (each home's credential stores, /etc's
// secrets, /proc's patterns, the data directories), and trying each was a
// sixth of an in-process decision's CPU. A rule is listed under the first
// element of each of its patterns (the pattern, its canonical form, its
// aliases; their folded forms in folded), or in wild when a pattern's
// first element is itself a pattern or the pattern is "/" (it matches
// whatever the path begins with). It only narrows which rules are tried:
// each is still judged by matches and matchesFolded.
type sensitiveIndex struct {
	first, folded    map[string][]int
	wild, wildFolded []int
}

// sensitiveIndex returns v's index of v.sensitive, made on the first call
// (a view is not changed once built).
func (v *fsView) sensitiveIndex() *sensitiveIndex {
	v.sensOnce.Do(v.indexSensitive)
	return v.sensIdx
}

// indexSensitive builds v's sensitiveIndex from v.sensitive.
func (v *fsView) indexSensitive() {
	x := &sensitiveIndex{first: map[string][]int{}, folded: map[string][]int{}}
	for i, r := range v.sensitive {
		pats := append([][]string{r.parts, r.canonical}, r.aliases...)
		x.add(x.first, &x.wild, i, pats)
		x.add(x.folded, &x.wildFolded, i, r.folded)
	}
	v.sensIdx = x
}

// add lists rule i under the first element of each of pats (once a key).
func (x *sensitiveIndex) add(m map[string][]int, wild *[]int, i int, pats [][]string) {
	for _, p := range pats {
		if len(p) == 0 || strings.Contains(p[0], "*") {
			if l := *wild; len(l) == 0 || l[len(l)-1] != i {
				*wild = append(l, i)
			}
			continue
		}
		if l := m[p[0]]; len(l) == 0 || l[len(l)-1] != i {
			m[p[0]] = append(l, i)
		}
	}
}

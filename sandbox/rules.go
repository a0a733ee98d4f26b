package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"turnstile/domain"
)

// weaker returns the weaker of two accesses (deny < read < write).
func weaker(a, b domain.Access) domain.Access {
	if accessRank(b) < accessRank(a) {
		return b
	}
	return a
}

// grantAt is the strongest grant covering p, carve-outs ignored.
func (v *fsView) grantAt(p string) domain.Access {
	best := domain.AccessDeny
	for _, g := range v.grants {
		if domain.PathWithin(p, g.Path) && accessRank(g.Access) > accessRank(best) {
			best = g.Access
		}
	}
	return best
}

// effectiveCarves returns the carve-outs that narrow a grant (their access
// is weaker than the strongest grant covering them, which is what Landlock's
// additive rules give there) and exist on disk: only those need enforcing.
// A missing carve-out needs nothing (a reserved name is held by Run before
// the helper starts).
func (v *fsView) effectiveCarves() []fsRule {
	var out []fsRule
	for _, c := range v.carves {
		if accessRank(c.Access) >= accessRank(v.grantAt(c.Path)) {
			continue
		}
		if _, err := os.Lstat(c.Path); err != nil {
			continue
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// effectivePins returns the pinned directories and protected symlinks
// whose parent is writable (only those could be moved or replaced).
func (v *fsView) effectivePins() []fsRule {
	var out []fsRule
	for _, p := range v.pins {
		if v.grantAt(filepath.Dir(p.Path)) != domain.AccessWrite {
			continue
		}
		if fi, err := os.Lstat(p.Path); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	for _, l := range v.protectedLinks() {
		if v.grantAt(filepath.Dir(l)) == domain.AccessWrite {
			out = append(out, fsRule{Path: l, Access: domain.AccessWrite, Kind: domain.PathProtected, Pin: true})
		}
	}
	return out
}

// protectedLinks returns the protected entries that are themselves
// symlinks (their parent directories resolved, the entry itself not): the
// carve-out applies to the link's target, and the link itself is pinned so
// that it cannot be replaced.
func (v *fsView) protectedLinks() []string {
	var out []string
	memo := canonMemo{} // the protected entries share a few parents
	for _, c := range append(slices.Clone(v.carves), v.pins...) {
		if c.Kind != domain.PathProtected || c.From == "" {
			continue
		}
		parent, ok := memo.dir(filepath.Dir(c.From))
		if !ok {
			continue
		}
		p := joinPath(parent, filepath.Base(c.From))
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// landlockRules turns the view into additive Landlock rules. Carve-outs in
// mounted (made read-only by a bind mount) need no rule work. Every other
// effective carve-out is enforced by granting, instead of the directory that
// contains it, that directory's entries one by one (recursively down to the
// carve-out), the directories on the way getting only the weakest access
// below them. This is strictly narrower than the policy: creating or
// deleting entries directly in those directories is lost, and entries
// created there later are not covered. Symlinked entries are never granted
// (their targets are covered by their own rules, or not at all).
func (v *fsView) landlockRules(mounted map[string]bool) ([]llRule, error) {
	var carves []fsRule
	for _, c := range append(v.effectiveCarves(), v.effectivePins()...) {
		if !mounted[c.Path] {
			carves = append(carves, c)
		}
	}
	var out []llRule
	for _, g := range v.grants {
		var rel []fsRule
		for _, c := range carves {
			if c.Reopenable && g.Path != c.Path && domain.PathWithin(g.Path, c.Path) {
				continue // g reopens c's subtree
			}
			if domain.PathWithin(c.Path, g.Path) || domain.PathWithin(g.Path, c.Path) {
				rel = append(rel, c)
			}
		}
		if err := expand(g.Path, g.Access, rel, &out, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxExpandDepth bounds the recursion of expand.
const maxExpandDepth = 64

// expand grants dir with access a, minus the carve-outs rel (which contain
// dir or lie below it).
func expand(dir string, a domain.Access, rel []fsRule, out *[]llRule, depth int) error {
	if depth > maxExpandDepth {
		return fmt.Errorf("carve-out below %s is too deep", dir)
	}
	eff := a
	var below []fsRule
	for _, c := range rel {
		switch {
		case domain.PathWithin(dir, c.Path):
			if !c.Pin {
				eff = weaker(eff, c.Access)
			}
		case domain.PathWithin(c.Path, dir):
			below = append(below, c)
		}
	}
	floor := eff
	var narrowing []fsRule
	for _, c := range below {
		switch {
		case c.Pin && eff == domain.AccessWrite:
			// Without a mount a pinned directory stays in place only if
			// no directory above it grants removing entries.
			narrowing = append(narrowing, c)
			floor = weaker(floor, domain.AccessRead)
		case !c.Pin && accessRank(c.Access) < accessRank(eff):
			narrowing = append(narrowing, c)
			floor = weaker(floor, c.Access)
		}
	}
	if len(narrowing) == 0 {
		if eff != domain.AccessDeny {
			*out = append(*out, llRule{path: dir, access: eff})
		}
		return nil
	}
	if floor != domain.AccessDeny {
		*out = append(*out, llRule{path: dir, access: floor})
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot list %s to carve out protected paths: %w", dir, err)
	}
	for _, e := range ents {
		p := joinPath(dir, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		var sub []fsRule
		for _, c := range narrowing {
			if domain.PathWithin(c.Path, p) {
				sub = append(sub, c)
			}
		}
		switch {
		case len(sub) > 0:
			if err := expand(p, eff, sub, out, depth+1); err != nil {
				return err
			}
		case accessRank(eff) > accessRank(floor):
			*out = append(*out, llRule{path: p, access: eff})
		}
	}
	return nil
}

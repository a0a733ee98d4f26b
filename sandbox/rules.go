package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// typeMemo answers, for one pass over a view's entries (a mount plan being
// made, or the Landlock rules), what type of file each path is without
// following a symlink: 0 when it does not exist or cannot be looked up.
// The passes ask about the same carve-outs, pins and directories on the
// way several times; each is looked up once, without an allocation, and
// the children of a directory listed (a writable root, where most of the
// protected list's names are asked about and missing) are answered from
// its listing. A memo never lives across a change the pass itself makes
// (the mounts).
type typeMemo struct {
	t      map[string]uint32
	listed map[string]bool
}

func newTypeMemo() *typeMemo {
	return &typeMemo{t: map[string]uint32{}, listed: map[string]bool{}}
}

// maxListedNames bounds the listing of one directory (list), in
// readDirents' units: a larger one is left to a lookup per path.
const maxListedNames = 4096

// list reads dir's entries once, so that its children are answered from
// the listing (readListing). A directory that cannot be listed is not.
func (m *typeMemo) list(dir string) {
	if _, done := m.listed[dir]; done {
		return
	}
	types, ok := readListing(dir)
	m.listed[dir] = ok
	for name, typ := range types {
		m.t[joinPath(dir, name)] = typ
	}
}

// readListing returns the S_IFMT bits of each entry of dir by name
// (readDirents, within maxListedNames of its budget, a long name counting
// more as in the walk). It fails (false) for a directory that cannot be
// read, that holds more, or holds an entry of an unknown type: a lookup
// per path answers there.
func readListing(dir string) (map[string]uint32, bool) {
	budget := maxListedNames
	ents, _, err := readDirents(dir, &budget)
	if err != nil {
		return nil, false
	}
	types := make(map[string]uint32, len(ents))
	for _, e := range ents {
		t := direntType(e.typ)
		if t == 0 {
			return nil, false
		}
		types[e.name] = t
	}
	return types, true
}

// direntType is the S_IFMT bits of a directory entry's type, 0 when
// unknown.
func direntType(t uint8) uint32 {
	switch t {
	case unix.DT_DIR:
		return unix.S_IFDIR
	case unix.DT_REG:
		return unix.S_IFREG
	case unix.DT_LNK:
		return unix.S_IFLNK
	case unix.DT_SOCK:
		return unix.S_IFSOCK
	case unix.DT_FIFO:
		return unix.S_IFIFO
	case unix.DT_CHR:
		return unix.S_IFCHR
	case unix.DT_BLK:
		return unix.S_IFBLK
	}
	return 0
}

// typeOf is the S_IFMT bits of p's lstat, or 0. A path whose directory
// is missing, or neither a directory nor a symlink (which may lead to
// one), is missing itself, without a lookup (most of
// the protected list's paths lie below a few directories a root lacks:
// .config, .vscode, .claude …), and a listed directory's child is
// answered from the listing.
func (m *typeMemo) typeOf(p string) uint32 {
	if t, ok := m.t[p]; ok {
		return t
	}
	var t uint32
	d := filepath.Dir(p)
	switch {
	case m.listed[d]:
		// Not in the listing: missing.
	case d == p || d == "/" || m.typeOf(d) == unix.S_IFDIR || m.typeOf(d) == unix.S_IFLNK:
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			t = st.Mode & unix.S_IFMT
		}
	}
	m.t[p] = t
	return t
}

func (m *typeMemo) exists(p string) bool { return m.typeOf(p) != 0 }
func (m *typeMemo) isDir(p string) bool  { return m.typeOf(p) == unix.S_IFDIR }

// listRoots lists the view's writable roots in m.
func (v *fsView) listRoots(m *typeMemo) {
	for _, g := range v.grants {
		if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice {
			m.list(g.Path)
		}
	}
}

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
func (v *fsView) effectiveCarves(tm *typeMemo) []fsRule {
	var out []fsRule
	for _, c := range v.carves {
		if accessRank(c.Access) >= accessRank(v.grantAt(c.Path)) {
			continue
		}
		if !tm.exists(c.Path) {
			continue
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// effectivePins returns the pinned directories and protected symlinks
// whose parent is writable (only those could be moved or replaced).
func (v *fsView) effectivePins(tm *typeMemo) []fsRule {
	var out []fsRule
	for _, p := range v.pins {
		if v.grantAt(filepath.Dir(p.Path)) != domain.AccessWrite {
			continue
		}
		if tm.isDir(p.Path) {
			out = append(out, p)
		}
	}
	links, left := v.protectedLinks(tm)
	for _, l := range append(links, left...) {
		if v.grantAt(filepath.Dir(l)) == domain.AccessWrite {
			out = append(out, fsRule{Path: l, Access: domain.AccessWrite, Kind: domain.PathProtected, Pin: true})
		}
	}
	return out
}

// protectedLinks returns the symlinks the carve-outs and pins are written
// through, each where it lies: a protected entry that is itself a symlink
// (.claude linked to the person's dotfiles), and every link the lookup of a
// carve-out's path passes (a profile's "vault" = "deny" where vault leads
// to .vault-data; a link whose target passes a second link: both). The
// carve-out applies to where they lead, and each link whose directory is
// writable is pinned by the callers so that it cannot be removed or
// replaced: a command removed one, the carve-out then lay at a missing
// path, and the directory it had covered was the workspace's own (the
// fifty-third review; the second link of a chain, the fifty-fifth).
//
// left are the directories such a lookup enters and leaves by ".." (vault
// -> sub/../.vault-data: sub), pinned as directories: a command replaced sub
// with a link and the path went elsewhere (the fifty-seventh review).
//
// The helper looks them up before it builds the command's root view
// (fixProtectedLinks): a carve-out written above a root (addAboveRootLinks:
// repo/.vscode -> sub/cfg -> editor, for a turn rooted at repo/sub) passes
// its links in a directory the view then hides, and a lookup there found
// none of them, so the link in the root (sub/cfg) was left movable (the
// hundred-and-seventy-fifth review).
func (v *fsView) protectedLinks(tm *typeMemo) (out, left []string) {
	if v.hostLinks != nil {
		return slices.Clip(v.hostLinks[0]), slices.Clip(v.hostLinks[1])
	}
	seen := map[string]bool{}
	memo := canonMemo{} // the protected entries share a few parents
	for _, c := range append(slices.Clone(v.carves), v.pins...) {
		// Its path as written, not cleaned: the kernel takes a ".." after
		// a link from the link's target (link/../.githooks), and a path
		// with none that canonicalised to itself passed no link (a link
		// never leads to itself).
		if c.From == "" {
			continue
		}
		if dir, exists, ok, err := memo.path(domain.CleanPath(filepath.Dir(c.From))); err == nil && ok && exists && !strings.Contains(c.From, "..") {
			// The entry itself a link (a pin protect.go adds for a link
			// whose target a ".." leaves, kept where it lies).
			if l := joinPath(dir, filepath.Base(c.From)); !seen[l] && tm.typeOf(l) == unix.S_IFLNK {
				seen[l] = true
				out = append(out, l)
			}
		}
		if !strings.Contains(c.From, "..") && domain.CleanPath(c.From) == c.Path {
			continue
		}
		links, dirs := linksPassed(c.From)
		for _, l := range links {
			if !seen[l] && tm.typeOf(l) == unix.S_IFLNK {
				seen[l] = true
				out = append(out, l)
			}
		}
		for _, d := range dirs {
			if !seen[d] && tm.isDir(d) {
				seen[d] = true
				left = append(left, d)
			}
		}
	}
	return out, left
}

// fixProtectedLinks looks protectedLinks up now, in the host's tree, for
// every later caller.
func (v *fsView) fixProtectedLinks() {
	links, left := v.protectedLinks(newTypeMemo())
	v.hostLinks = &[2][]string{links, left}
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
	tm := newTypeMemo()
	v.listRoots(tm)
	for _, c := range append(v.effectiveCarves(tm), v.effectivePins(tm)...) {
		if !mounted[c.Path] {
			carves = append(carves, c)
		}
	}
	var out []llRule
	for _, g := range v.grants {
		var rel []fsRule
		for _, c := range carves {
			if c.Reopenable && g.Path != c.Path && domain.PathWithin(g.Path, c.Path) && !g.linkedInto(&c) {
				continue // g reopens c's subtree (a grant through a link reopens nothing: fsView.shadow)
			}
			if domain.PathWithin(c.Path, g.Path) || domain.PathWithin(g.Path, c.Path) {
				rel = append(rel, c)
			}
		}
		a := g.Access
		if g.Overlay && v.overlaid[g.Path] {
			a = domain.AccessWrite // the command's own overlay (overlay.go)
		}
		if err := expand(g.Path, a, rel, &out, 0); err != nil {
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
	ents, err := readDir(dir)
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

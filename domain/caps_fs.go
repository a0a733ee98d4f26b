package domain

import (
	"cmp"
	"slices"
	"strings"
)

// IntersectFilesystem intersects two sets of roots: for each pair of nested
// roots the narrower path with the weaker access; disjoint roots give
// nothing. Carve-outs of either side (protected paths, deny entries,
// sensitive paths) are always kept: a deny is never dropped. A pair whose
// narrower path lies below a reopenable deny of one side that the side's own
// root does not reopen is dropped (it would reopen what that side denies).
// An unrestricted side behaves as "/" writable.
func IntersectFilesystem(a, b FilesystemPolicy) FilesystemPolicy {
	ra, pa := splitProtected(a)
	rb, pb := splitProtected(b)
	var out []FilesystemEntry
	for _, x := range ra {
		for _, y := range rb {
			p, ok := narrowerPath(x.ResolvedPath, y.ResolvedPath)
			if !ok || reopensDenied(pa, x.ResolvedPath, p) || reopensDenied(pb, y.ResolvedPath, p) {
				continue
			}
			e := x
			if p != x.ResolvedPath || (p == y.ResolvedPath && entryLess(y, x)) {
				e = y
			}
			e.Access = weakerAccess(x.Access, y.Access)
			if p != x.ResolvedPath || p != y.ResolvedPath {
				// What each side grants at p itself: a root narrowed to
				// below a side's read-only entry (a protected item, a
				// profile's read subtree) kept the root's write, and the
				// entry, above the new root, was dropped (a child rooted
				// at .devcontainer/sub wrote what its parent keeps
				// read-only: the hundred-and-sixty-fifth review).
				e.Access = weakerAccess(e.Access, weakerAccess(AccessAt(&a, p), AccessAt(&b, p)))
			}
			if e.Access == AccessDeny {
				continue
			}
			// A side's overlay at or above p (below the root it pairs
			// with) caps it: the host's directory stays read there.
			e.Overlay = e.Overlay && e.Access == AccessRead
			if overlaid(a.Entries, p) || overlaid(b.Entries, p) {
				e.Access, e.Overlay = AccessRead, true
			}
			w, ok := narrowerWithin(x.Within, y.Within)
			if !ok {
				continue // bound to two disjoint allowed roots: neither grants it
			}
			e.Within = w
			out = append(out, e)
		}
	}
	out = slices.DeleteFunc(out, func(e FilesystemEntry) bool { return e.Kind == pathVirtualRoot })
	out = append(out, pa...)
	fs := normalizeEntries(FilesystemPolicy{Unrestricted: a.Unrestricted && b.Unrestricted, Entries: append(out, pb...)})
	// The glob denies of either side's rules are masked at spawn as deep
	// as the deeper side looks (the rules themselves are carried by the
	// caller: ResolveChildSnapshot, NarrowToParent).
	fs.GlobScanMaxDepth = max(a.GlobScanMaxDepth, b.GlobScanMaxDepth)
	return fs
}

// reopensDenied reports whether a grant at p (narrowed from the side's root
// at root) would lie strictly below a reopenable deny of the side's carves
// that shadows that root: the side denies everything at p through root.
func reopensDenied(carves []FilesystemEntry, root, p string) bool {
	for _, d := range carves {
		if d.IsReopenable() && p != d.ResolvedPath && PathWithin(p, d.ResolvedPath) && PathWithin(d.ResolvedPath, root) {
			return true
		}
	}
	return false
}

const pathVirtualRoot PathKind = "\x00root"

// splitProtected separates a policy's roots (grants) from its carve-outs
// (protected paths and deny entries).
func splitProtected(fs FilesystemPolicy) (roots, carves []FilesystemEntry) {
	for _, e := range fs.Entries {
		if e.IsCarve() {
			carves = append(carves, e)
		} else {
			roots = append(roots, e)
		}
	}
	if fs.Unrestricted {
		roots = append(roots, FilesystemEntry{Kind: pathVirtualRoot, Path: "/", Access: AccessWrite, ResolvedPath: "/"})
	}
	return roots, carves
}

func entryLess(x, y FilesystemEntry) bool {
	return cmp.Or(strings.Compare(string(x.Kind), string(y.Kind)), strings.Compare(string(x.Provenance), string(y.Provenance)),
		strings.Compare(x.Path, y.Path)) < 0
}

// normalizeEntries sorts entries and drops exact duplicates, keeping for each
// (path, class) the strongest access of a grant and the weakest of a
// carve-out, so equal policies compare equal. A protected path (not a deny)
// matters only inside a writable root (as written, or where it led: its
// LedTo, where BindRootLinks writes the entries inside it); others are
// dropped. Deny entries are always kept; a grant a deny hides entirely (at
// or below a deny nothing may reopen, or at a reopenable deny's own path)
// is dropped.
func normalizeEntries(fs FilesystemPolicy) FilesystemPolicy {
	es := slices.DeleteFunc(slices.Clone(fs.Entries), func(p FilesystemEntry) bool {
		if !p.IsCarve() {
			return slices.ContainsFunc(fs.Entries, func(d FilesystemEntry) bool {
				return d.Access == AccessDeny && d.IsCarve() && PathWithin(p.ResolvedPath, d.ResolvedPath) &&
					(!d.IsReopenable() || p.ResolvedPath == d.ResolvedPath)
			})
		}
		return p.Kind == PathProtected && p.Access != AccessDeny && !fs.Unrestricted && !slices.ContainsFunc(fs.Entries, func(r FilesystemEntry) bool {
			return !r.IsCarve() && r.Kind != PathDevice && r.Access == AccessWrite &&
				(PathWithin(p.ResolvedPath, r.ResolvedPath) || r.LedTo != "" && PathWithin(p.ResolvedPath, r.LedTo))
		})
	})
	slices.SortFunc(es, func(x, y FilesystemEntry) int {
		acc := -strings.Compare(string(x.Access), string(y.Access))
		if x.IsCarve() && y.IsCarve() {
			// The strongest restriction first: the weakest access, and a
			// deny nothing may reopen before one a grant may reopen.
			acc = cmp.Or(x.Access.rank()-y.Access.rank(), boolCmp(x.IsReopenable(), y.IsReopenable()))
		}
		return cmp.Or(strings.Compare(x.ResolvedPath, y.ResolvedPath), boolCmp(x.IsCarve(), y.IsCarve()),
			acc, strings.Compare(string(x.Kind), string(y.Kind)),
			strings.Compare(string(x.Provenance), string(y.Provenance)), strings.Compare(x.Path, y.Path), boolCmp(x.Reserved, y.Reserved))
	})
	// One entry a path and class: the first (the strongest grant), made
	// the overlay one of the run holds (an overlay wins a tie with write).
	out := es[:0]
	for _, e := range es {
		if n := len(out); n > 0 && out[n-1].ResolvedPath == e.ResolvedPath && out[n-1].IsCarve() == e.IsCarve() {
			if !e.IsCarve() && e.Overlay && e.Access == AccessRead && out[n-1].Access == AccessWrite {
				out[n-1].Access, out[n-1].Overlay = AccessRead, true
			}
			continue
		}
		out = append(out, e)
	}
	es = out
	if len(es) == 0 {
		es = nil
	}
	return FilesystemPolicy{Unrestricted: fs.Unrestricted, Entries: es}
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// filesystemBroader reports whether a cap root grants more than the parent's
// roots grant at that path.
func filesystemBroader(c, p FilesystemPolicy) bool {
	if p.Unrestricted {
		return false
	}
	if c.Unrestricted {
		return true
	}
	roots, _ := splitProtected(p)
	for _, e := range c.Entries {
		if e.IsCarve() {
			continue // carve-outs only take away
		}
		if !slices.ContainsFunc(roots, func(r FilesystemEntry) bool {
			return PathWithin(e.ResolvedPath, r.ResolvedPath) && r.Access.Covers(e.Access)
		}) {
			return true
		}
	}
	return false
}

// narrowerWithin combines two roots' bounds (Within): the narrower when one
// lies in the other, either when the other is unbound; ok is false when
// both are bound and disjoint.
func narrowerWithin(a, b string) (string, bool) {
	switch {
	case a == "":
		return b, true
	case b == "" || PathWithin(a, b):
		return a, true
	case PathWithin(b, a):
		return b, true
	}
	return "", false
}

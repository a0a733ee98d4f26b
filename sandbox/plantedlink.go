package sandbox

import (
	"path/filepath"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// A profile's own keys (an overlay, a write or read path) are granted where
// they lead at spawn. One that lies inside a writable root, or does not
// exist yet there, is the agent's to make: a command made ws/vendor, a
// profile's overlay key, a link to a root-owned 0700 directory, and the
// next command got that directory as its overlay's lower layer, idmapped
// to its uid: it read what only root could (the thirtieth review). Such a
// grant reached through a link that lies inside another writable grant is
// dropped (nothing is granted there). Links elsewhere (a home on another
// disk) are the person's, and followed as before. The turn's own roots are
// not judged here (they are bound when the turn starts).

// A profile's overlay or write key is more: the command's uid is mapped to
// the owner of the directory it leads to (an idmapped mount), so through a
// link it is given that owner's files, root's or the person's ~/.ssh, as its
// own. A link can be planted where this view cannot see it (in a writable
// root of another turn: the thirty-first review), so such a key is granted
// only where its path, as written, passes through no symlink at all; one
// that does is read-only, not idmapped (the command reads there what its
// own uid may). Write the real path in the profile.

// dropPlantedLinks removes from v.grants the profile grants whose path as
// written passes through a symlink inside another writable grant, and makes
// read-only the overlay and write grants whose path passes through any.
func (v *fsView) dropPlantedLinks() {
	for i := range v.grants {
		g := &v.grants[i]
		if g.Kind == domain.PathExplicit && g.From != "" && g.From != g.Path && (g.Overlay || g.Access == domain.AccessWrite) {
			g.Access, g.Overlay = domain.AccessRead, false
		}
	}
	var writable []string
	for _, g := range v.grants {
		if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice {
			writable = append(writable, g.Path)
		}
	}
	if len(writable) == 0 {
		return
	}
	kept := v.grants[:0]
	for _, g := range v.grants {
		// A path that canonicalised to itself passed through no link.
		if g.Kind == domain.PathExplicit && g.From != "" && g.From != g.Path && linkedInside(g.From, g.Path, writable) {
			continue
		}
		kept = append(kept, g)
	}
	v.grants = kept
}

// linkedInside reports whether the clean absolute path from passes, on its
// way, through a symlink whose directory (resolved) lies inside one of
// writable other than self (the grant's own canonical path).
func linkedInside(from, self string, writable []string) bool {
	for q := from; q != "/" && q != "."; q = filepath.Dir(q) {
		var st unix.Stat_t
		if unix.Lstat(q, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
			continue
		}
		dir, _, ok, err := canonicalPath(filepath.Dir(q))
		if err != nil || !ok {
			return true // cannot tell where it lies: not granted
		}
		at := joinPath(dir, filepath.Base(q))
		for _, w := range writable {
			if w != self && domain.PathWithin(at, w) {
				return true
			}
		}
	}
	return false
}

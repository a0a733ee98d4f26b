package sandbox

import (
	"strings"

	"turnstile/domain"
)

// dropInsideSensitive removes from v.grants each grant that lies in a
// sensitive path (the gateway's secrets, a credential store, another
// workspace's project): a root named there (an app read root or project
// root at ~/.ssh/keys) was mounted over the sensitive path's mask, and the
// command read what every decision refuses (the hundred-and-twenty-fifth
// review). Nothing reopens a sensitive path; a profile's deny can be
// reopened by a more specific grant, a sensitive one cannot.
func (v *fsView) dropInsideSensitive(memo canonMemo, lists dirLists) {
	var at []string
	var pats [][]string
	for _, d := range v.denied {
		if !d.sensitive {
			continue
		}
		ps := []string{d.path}
		if strings.Contains(d.path, "*") {
			// A pattern by the kernel mask's rule ("*" only: a project
			// named billing[v2] is a path, the hundred-and-twenty-ninth
			// review), matched against the grants as the checker
			// matches it (globPrefix).
			parts := splitPath(domain.CleanPath(d.path))
			pats = append(pats, parts)
			if domain.PathWithin(d.path, "/proc") {
				// No match there leads elsewhere that the pattern does
				// not name ("/proc/self" is a "*"), and listing every
				// task of every process cost more than the rest of the
				// view.
				continue
			}
			ps = lists.expand(parts)
		}
		for _, p := range ps {
			at = append(at, p)
			// And where it leads: a ~/.ssh linked to /srv/keys is
			// masked there, and a root named by the real path lay
			// inside the mask (the hundred-and-twenty-ninth review).
			// (Through the pass's memo: the same directories' names
			// were looked up for the entries; a path that does not
			// exist yet is taken where its existing parent leads.)
			if real, ok, err := memo.canonical(domain.CleanPath(p)); err == nil && ok && real != p {
				at = append(at, real)
			}
		}
	}
	if len(at) == 0 && len(pats) == 0 {
		return
	}
	kept := v.grants[:0]
	for _, g := range v.grants {
		if g.Access == domain.AccessDeny || g.Kind == domain.PathDevice || g.Kind == domain.PathSystemRoot || !insideAny(g.Path, at, pats) {
			kept = append(kept, g)
		}
	}
	v.grants = kept
}

// insideAny reports whether the clean absolute path p is one of the paths
// at or lies below one, or matches one of the patterns pats or lies below
// a match.
func insideAny(p string, at []string, pats [][]string) bool {
	for _, s := range at {
		if domain.PathWithin(p, s) {
			return true
		}
	}
	if len(pats) == 0 {
		return false
	}
	var buf [64]string
	got := appendParts(buf[:0], p)
	for _, pat := range pats {
		if globPrefix(pat, got) {
			return true
		}
	}
	return false
}

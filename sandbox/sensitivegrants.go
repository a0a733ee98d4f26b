package sandbox

import (
	"path/filepath"
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
func (v *fsView) dropInsideSensitive(lists dirLists) {
	var at []string
	for _, d := range v.denied {
		if !d.sensitive {
			continue
		}
		ps := []string{d.path}
		if strings.Contains(d.path, "*") {
			// A pattern by the kernel mask's rule ("*" only: a project
			// named billing[v2] is a path, the hundred-and-twenty-ninth
			// review).
			ps = lists.expand(splitPath(domain.CleanPath(d.path)))
		}
		for _, p := range ps {
			at = append(at, p)
			// And where it leads: a ~/.ssh linked to /srv/keys is
			// masked there, and a root named by the real path lay
			// inside the mask (the hundred-and-twenty-ninth review).
			if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
				at = append(at, real)
			}
		}
	}
	if len(at) == 0 {
		return
	}
	kept := v.grants[:0]
	for _, g := range v.grants {
		inside := false
		if g.Access != domain.AccessDeny && g.Kind != domain.PathDevice && g.Kind != domain.PathSystemRoot {
			for _, s := range at {
				if domain.PathWithin(g.Path, s) {
					inside = true
					break
				}
			}
		}
		if !inside {
			kept = append(kept, g)
		}
	}
	v.grants = kept
}

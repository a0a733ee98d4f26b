package sandbox

import (
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Links planted at a glob deny's name.
//
// A profile's glob deny ("**/*.env" = deny) masks, at each spawn, the
// matches the scan finds then (globmask.go). A command that makes such a
// name a link to a file of its own (a symlink to leak.txt, a hard link of
// it, or a directory holding one) before the person writes a secret there
// read the secret at its next command through the other name, which no rule
// denies (the hundred-and-twentieth review). As for a literal deny entry
// (plantedLink, setAsideCreated), a match the command made or changed that
// holds another way to its contents is set aside after the command; a
// plain file or tree it made stays (what the person writes there later is
// masked where it lies).

// setGlobDeny gives the check the profile's glob rules.
func (pc *plantCheck) setGlobDeny(rules []domain.PathRule) {
	if pc.globLasts = globDenyLasts(rules); len(pc.globLasts) > 0 {
		pc.globRules = canonicalRules(rules)
	}
}

// globDenies reports whether a glob deny rule matches the path p (whose
// last component is name), or, for a symbolic link (link), may match a
// path below it (domain.GlobDenyBelow: a link at "secrets" under
// "**/secrets/*.pem" leads what the person writes there elsewhere).
func (pc *plantCheck) globDenies(p, name string, link bool) bool {
	if len(pc.globLasts) == 0 {
		return false
	}
	if link && domain.GlobDenyBelow(pc.globRules, p) {
		return true
	}
	if !lastMatches(pc.globLasts, name) {
		return false
	}
	d := domain.ResolvePathRules(pc.globRules, p)
	return d.Access == domain.AccessDeny && d.Rule != nil && d.Rule.Glob
}

// globPlanted sets aside each of names (below the directory rel) that the
// command made or changed, or moved here (moved: rel lies in a directory
// the command moved; visit), and that holds a link (plantedLink).
func (w *plantWalk) globPlanted(rel string, names []string, moved bool) {
	for _, n := range names {
		p := w.path(relChild(rel, n))
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || !moved && time.Unix(st.Ctim.Unix()).Before(w.since) || !plantedLink(p) {
			continue
		}
		moved, note, err := setAsidePath(p, w.rootPath)
		w.found = append(w.found, settled(Quarantine{Path: p,
			Reason: "a name a glob deny rule of the profile's matches, which the command made a link to contents of its own"}, moved, note, err))
	}
}

package sandbox

import (
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// A command killed outright leaves its check to the next command over its
// roots (rootlock.go). That check used to run after the next command, over
// what both had done: the next command could first move the killed one's
// plant out of the killed root (a command over ws after one killed over
// ws/sub: `mv sub/evil/dotgit proj/.git`), where only its own, later start
// judged it, and a rename keeps a repository's files' times (review 203);
// it could move the killed root itself away, which sent the check over its
// whole enclosing root from the killed start (the person's work there set
// aside); and its own ordinary commit in a person's repository with hooks
// had that repository judged as the killed command's. So what the killed
// command left is checked first, before the next command is given its
// plan: as it stands, by a check of its own over the roots as they are
// now, and then the command's own check after it goes by its own start.

// catchUpFirst is what Run found of commands killed before their check.
type catchUpFirst struct {
	// since is the earliest start a marker of the command's own roots
	// held (zero: none); below are the killed commands' roots below them.
	since time.Time
	below []BelowSince
	// done: checked (prepareSpec may run twice: a start retried without
	// its cgroup); caught and limits are what the check set aside and its
	// limits, reported with the command's own.
	done   bool
	caught []Quarantine
	limits []string
}

// pending reports whether there is anything to check.
func (c *catchUpFirst) pending() bool { return !c.done && (!c.since.IsZero() || len(c.below) > 0) }

// run checks, before the command starts, what the killed commands left:
// the command's own roots from since, as a catch-up, and each root below
// from its own start, with the protected list held at it (the killed
// command's turn had it there). entries are the command's filesystem
// entries. It reports whether it set anything aside (the command's view,
// built before, may name what is gone).
func (c *catchUpFirst) run(entries []domain.FilesystemEntry, cmdUID int, globRules []domain.PathRule) bool {
	c.done = true
	// A check set up as the command's own is (prepareSpec): the command's
	// uid (a shared /tmp's top entries judged as the command's only when
	// its uid's: review 204 saw every user's set aside), the profile's
	// glob denies (a link planted at a denied name: review 204).
	check := func(es []domain.FilesystemEntry) *plantCheck {
		pc := newPlantCheck(newFSView(&domain.FilesystemPolicy{Entries: es}))
		if pc != nil {
			pc.cmdUID = cmdUID
			pc.setGlobDeny(globRules)
		}
		return pc
	}
	// keep runs one catch-up on pc: its links first (they change what
	// the walk trusts), then walk, and keeps what both found.
	keep := func(pc *plantCheck, es []domain.FilesystemEntry, since time.Time, within string, walk func() ([]Quarantine, []string)) {
		caught := pc.linksMadeSince(es, since, within)
		q, lim := walk()
		if pc.overflow != "" {
			lim = append(lim, pc.overflow)
		}
		pc.close()
		c.caught, c.limits = append(append(c.caught, caught...), q...), append(c.limits, lim...)
	}
	if !c.since.IsZero() {
		if pc := check(entries); pc != nil {
			pc.catchUp = true
			keep(pc, entries, c.since, "/", func() ([]Quarantine, []string) { return pc.run(c.since) })
		}
	}
	for _, b := range c.below {
		es := entries
		s := domain.TurnExecutionSecuritySnapshot{Sandbox: domain.SandboxPolicy{Filesystem: domain.FilesystemPolicy{Entries: entries}}}
		if at, ok, err := s.AlsoProtectedAt(b.Root); err != nil {
			c.limits = append(c.limits, fmt.Sprintf("the protected list was not held at %s, the root of a command killed before its check ran, for its check: %v", b.Root, err))
		} else if ok {
			es = at.Sandbox.Filesystem.Entries
		}
		if pc := check(es); pc != nil {
			keep(pc, es, b.Since, b.Root, func() ([]Quarantine, []string) { return pc.catchUpBelow(b.Root, b.Since, rootReplaced(b)) })
		}
	}
	return len(c.caught) > 0
}

// linksMadeSince undoes, for a check set up after a killed command, what
// it took for the way things were: the symlinks within (the killed
// command's root) made or changed since its start, or moved into place
// since with a directory above them (changedSince: change times, which a
// command cannot set back). A link on a protected path's way is
// then one the command made (review 204: a killed command's .mvn to an
// empty directory elsewhere, which a later command over that directory
// filled, was recorded as the person's); a path a held repository's
// config names whose way passes one is set aside (setAsideRelinked's
// reading: review 204, the person's include link retargeted to a config
// an earlier command left).
func (pc *plantCheck) linksMadeSince(entries []domain.FilesystemEntry, since time.Time, within string) (found []Quarantine) {
	since = since.Truncate(time.Second)
	shared := map[string]bool{}
	for _, r := range pc.roots {
		shared[r] = pc.cmdUID != 0 && sharedRootPath(r)
	}
	// made: p, below root r, is a symlink made or changed since, and, in
	// a shared root (/tmp), the command's uid's: another user's is not its
	// (the walk's reading of a shared root).
	made := func(p, r string) bool {
		var st unix.Stat_t
		return unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK &&
			changedSince(p, r, within, since) && (!shared[r] || int(st.Uid) == pc.cmdUID)
	}
	// The links on the way to each protected path as the snapshot names
	// it (the view's carves are where they lead).
	done := map[string]bool{}
	for _, e := range entries {
		if e.Kind != domain.PathProtected {
			continue
		}
		p := domain.CleanPath(e.ResolvedPath)
		for _, r := range pc.roots {
			if !domain.PathWithin(p, r) || p == r {
				continue
			}
			for d := p; d != r && domain.PathWithin(d, r); d = filepath.Dir(d) {
				if done[d] || !domain.PathWithin(d, within) || !made(d, r) {
					continue
				}
				done[d] = true
				delete(pc.wayLinks, d)
				q := Quarantine{Path: d, Reason: "a symlink a command killed before its check ran put on the way to " + p}
				moved, note, err := setAsidePath(d, r)
				found = append(found, settled(q, moved, note, err))
			}
			break
		}
	}
	for d := range pc.wayLinks {
		for _, r := range pc.roots {
			if domain.PathWithin(d, r) && domain.PathWithin(d, within) && made(d, r) {
				delete(pc.wayLinks, d)
				break
			}
		}
	}
	kept := pc.linkRefs[:0]
	for _, l := range pc.linkRefs {
		relinked := false
		for d := l.written; !relinked && d != l.root && domain.PathWithin(d, l.root); d = filepath.Dir(d) {
			relinked = domain.PathWithin(d, within) && made(d, l.root)
		}
		if relinked {
			found = append(found, setAsideOnTheWay(l.written, l.root, "a path a repository's config names, whose way a command killed before its check ran made lead elsewhere (a symlink on its way made or changed)"))
			continue
		}
		kept = append(kept, l)
	}
	pc.linkRefs = kept
	return found
}

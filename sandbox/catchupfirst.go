package sandbox

import (
	"fmt"
	"time"

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
func (c *catchUpFirst) run(entries []domain.FilesystemEntry) bool {
	c.done = true
	if !c.since.IsZero() {
		if pc := newPlantCheck(newFSView(&domain.FilesystemPolicy{Entries: entries})); pc != nil {
			pc.catchUp = true
			q, lim := pc.run(c.since)
			pc.close()
			c.caught, c.limits = append(c.caught, q...), append(c.limits, lim...)
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
		if pc := newPlantCheck(newFSView(&domain.FilesystemPolicy{Entries: es})); pc != nil {
			q, lim := pc.catchUpBelow(b.Root, b.Since)
			pc.close()
			c.caught, c.limits = append(c.caught, q...), append(c.limits, lim...)
		}
	}
	return len(c.caught) > 0
}

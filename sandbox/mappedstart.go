package sandbox

import (
	"sync"
	"syscall"
)

// mappedStarts serialises the starts of processes whose new user namespace
// gets id maps. Go's child of such a start waits, after the fork and before
// its exec (and before it applies Pdeathsig), for the parent to write the
// maps and release it through a pipe. Forks run concurrently, so a sibling
// forked meanwhile inherits that pipe's write end (close-on-exec closes it
// only at the exec) and, if it waits on a pipe of its own, keeps the first
// waiting: a server killed between a fork and its maps while it started
// several such children at once left them waiting for each other for
// good, each a copy of the server holding every descriptor it had (the
// API's listening socket, the store's lock, the status pipes of helpers
// already started, which then ran their commands once the copies were
// killed). One such child at a time inherits no other's release pipe;
// a child without maps execs at once and drops what it inherited.
var mappedStarts sync.Mutex

// startMapped runs start (a Start of a process with attr), one at a time
// among those whose attr carries id maps.
func startMapped(attr *syscall.SysProcAttr, start func() error) error {
	if attr != nil && (len(attr.UidMappings) > 0 || len(attr.GidMappings) > 0) {
		mappedStarts.Lock()
		defer mappedStarts.Unlock()
	}
	return start()
}

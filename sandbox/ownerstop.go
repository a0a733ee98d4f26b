package sandbox

import (
	"sync"

	"golang.org/x/sys/unix"
)

// ownerStop kills a command's processes by the call of the caller that
// owns the command (the engine ending its turn: Plan.KillWith), not from a
// goroutine that sees the context cancelled afterwards: the
// hundred-and-thirty-third review's test saw a command read what the agent
// wrote after the interrupt in that gap. Registered before the process
// starts, it learns the process group when the helper has started and
// waits for its plan (started), so that a command stopped before then is
// killed before it can run anything, and forgets the group once its leader
// has exited (exited), before it is reaped and its id can be used again.
type ownerStop struct {
	mu      sync.Mutex
	pgid    int
	kg      *killGroup // the unsandboxed command's cgroup (nil: none)
	stopped bool
}

// kill is what the owner calls: it kills the group now if it is known,
// or when started learns it.
func (o *ownerStop) kill() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopped = true
	o.killLocked()
}

func (o *ownerStop) killLocked() {
	if o.pgid > 0 {
		unix.Kill(-o.pgid, unix.SIGKILL)
		if o.kg != nil {
			o.kg.kill()
		}
	}
}

// started records the process group pgid (and kg, the cgroup, or nil) of
// a process that has run nothing of the command yet; one stopped already
// is killed now. A nil o does nothing.
func (o *ownerStop) started(pgid int, kg *killGroup) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pgid, o.kg = pgid, kg
	if o.stopped {
		o.killLocked()
	}
}

// exited forgets the process group (its leader has exited, unreaped) and
// reports whether the owner stopped the command. A nil o reports false.
func (o *ownerStop) exited() (stopped bool) {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pgid, o.kg = 0, nil
	return o.stopped
}

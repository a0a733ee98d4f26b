package sandbox

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ownerStop kills a command's processes by the call of the caller that
// owns the command (the engine ending its turn: Plan.KillWith), not from a
// goroutine that sees the context cancelled afterwards (the
// hundred-and-thirty-third review's test saw a command read what the agent
// wrote after the interrupt in that gap), and then waits until they can
// act no more (wait). Registered before the process starts, it learns the
// process group when the helper has started and waits for its plan
// (started), so that a command stopped before then is killed before it
// can run anything, and forgets the group once its leader has exited
// (exited), before it is reaped and its id can be used again.
type ownerStop struct {
	mu   sync.Mutex
	pgid int
	kg   *killGroup // the command's cgroup (nil: none)
	// pidfd is the leader's (-1: none), which wait polls: readable once
	// the leader has exited, a PID namespace's init after the kernel has
	// killed every process of the namespace (a process the command put in
	// a session of its own is no member of the group kill's: the
	// hundred-and-ninety-fourth review). Closed by close.
	pidfd   int
	stopped bool
}

// newOwnerStop returns an ownerStop that knows no process yet.
func newOwnerStop() *ownerStop { return &ownerStop{pidfd: -1} }

// ownerStopWait bounds wait without a cgroup: a leader stuck in the kernel
// does not hold the stopping call longer (a variable for a test that shows
// what ends the wait before it). ownerStopGroupWait bounds it with one:
// every process has its SIGKILL, and what holds one in the kernel longer
// costs the command its own disk (a file of millions of extents).
var (
	ownerStopWait      = 5 * time.Second
	ownerStopGroupWait = 10 * time.Minute
)

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
// a process that has run nothing of the command yet (a helper waiting for
// its plan; unsandboxed, the command just started); one stopped already
// is killed now. A nil o does nothing.
func (o *ownerStop) started(pgid int, kg *killGroup) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pgid, o.kg = pgid, kg
	if fd, err := unix.PidfdOpen(pgid, 0); err == nil {
		o.pidfd = fd
	}
	if o.stopped {
		o.killLocked()
	}
}

// wait returns once the processes of a command its owner stopped can act
// no more; at once when the owner did not stop it or no process started.
// With a cgroup, whose kill reached every process at once: when every
// process in it has begun its exit (or none is left), which takes as long
// as the longest system call in flight, at most ownerStopGroupWait (a
// process blocked uninterruptibly behind a slow truncate of its own file
// still wrote into the workspace after a stop that gave up at 5 s: the
// hundred-and-ninety-sixth review); not the leader's exit, which ends
// them all only for a PID namespace's init. Without one: when the leader
// has exited (a PID namespace's init, having taken every process of the
// namespace with it), at most ownerStopWait.
func (o *ownerStop) wait() {
	o.mu.Lock()
	if !o.stopped || o.pidfd < 0 {
		o.mu.Unlock()
		return
	}
	if kg := o.kg; kg != nil {
		o.mu.Unlock()
		for deadline := time.Now().Add(ownerStopGroupWait); !kg.settled() && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond) // polling the threads' state: no event tells it
		}
		return
	}
	fd, err := unix.Dup(o.pidfd) // close may close o.pidfd meanwhile
	o.mu.Unlock()
	if err != nil {
		return
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(ownerStopWait)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
		if n > 0 || err != nil && err != unix.EINTR {
			return
		}
	}
}

// close closes the leader's pidfd (once no kill or wait can start: after
// the owner unregistered). A nil o does nothing.
func (o *ownerStop) close() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pidfd >= 0 {
		unix.Close(o.pidfd)
		o.pidfd = -1
	}
}

// exited forgets the process group (its leader has exited, unreaped), so
// that kill sends nothing more (Run kills the cgroup itself), and
// reports whether the owner stopped the command. A nil o reports false.
func (o *ownerStop) exited() (stopped bool) {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pgid = 0 // the cgroup stays, for wait: its name is not used again
	return o.stopped
}

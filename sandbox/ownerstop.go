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

// ownerStopWait bounds wait: a leader stuck in the kernel does not hold
// the stopping call longer (a variable for a test that shows what ends the
// wait before it).
var ownerStopWait = 5 * time.Second

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
// no more: its leader has exited (a PID namespace's init, having taken
// every process of the namespace with it), or, with a cgroup (whose kill
// reached every process at once), every process in it has begun its exit;
// at most ownerStopWait. At once when the owner did not stop it or no
// process started.
func (o *ownerStop) wait() {
	o.mu.Lock()
	if !o.stopped || o.pidfd < 0 {
		o.mu.Unlock()
		return
	}
	kg := o.kg
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
		if kg != nil {
			// Polled: the group's events file tells when it is empty,
			// not when its last process has begun to exit.
			left = min(left, time.Millisecond)
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
		if n > 0 || err != nil && err != unix.EINTR {
			return
		}
		if kg != nil && kg.settled() {
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

package sandbox

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A server keeps one spare helper (KeepSpareHelper): a helper started in
// the namespaces its last restricted command had, in "/", waiting for a
// plan, so that the next command's helper has already paid its start (the
// program's exec, the Go runtime, its namespaces: about 10 ms of wall time
// on the development machine, most of what a spawn waits for) when the
// command arrives. It is the early helper of `turnstile sandbox`
// (early.go) made for any working directory, and Run gives it a plan only
// where it gives an early helper one (fits): same namespaces, same helper
// program, same kill group, no input, no proxy, not full_access. The
// helper builds everything else (root view, carve-outs, Landlock, seccomp,
// its uid) from the plan it reads, as a helper started for the command
// does.
//
// What a spare has from its start rather than from the command's is its
// copy of this process's mount table (made when it was cloned; the helper
// makes its mounts private only once it has its plan). Changes to it are
// watched: the spare keeps the mount table it was copied from (its cloning
// thread's /proc/thread-self/mountinfo) open from before its start, and is
// not used once that reports a change (poll's POLLPRI: a mount, an unmount
// or a remount since the open), nor once spareMaxAge has passed; Run then
// starts a helper as it does without a spare. A watcher (watchMounts, on
// its own open of the same file) ends an idle spare at once on a change,
// since a copy of a mount keeps its filesystem in use (the host's
// unmounted disk stays busy), and at spareMaxAge. A spare ended so is
// started again after the next restricted command only, so an idle server
// holds none for long.
//
// A command run in a spare is the spare's process: its start time (in
// /proc/1/stat of its PID namespace) is when the spare started, that is
// when the server's previous restricted command ended, whoever's it was.
// The README states it among the limits; the machine's load figures tell
// a command about other activity anyway.
//
// The spare changes when the helper's start is paid, not what it costs: a
// server that runs commands back to back pays it beside the command before
// (docs/benchmarks.md).

// spareMaxAge is how long a spare waits for a command before it is ended
// (by its watcher, watchMounts), and spareWatch (tests: fresh alone)
// whether it has a watcher; both read under spare.mu.
var (
	spareMaxAge = 60 * time.Second
	spareWatch  = true
)

var spare struct {
	mu       sync.Mutex
	on       bool
	starting bool
	wg       sync.WaitGroup // the starts under way
	// ended, when set (tests), is called with each spare ended unused.
	ended func(*earlyHelper)
}

// KeepSpareHelper has this process keep a spare helper for its restricted
// commands from its next one on (a server); false ends the spare it holds,
// once any start under way has returned.
func KeepSpareHelper(on bool) {
	spare.mu.Lock()
	spare.on = on
	var held *earlyHelper
	if !on {
		// Under the lock: no spare is parked, or put back, once off.
		held = earlyHelpers.Swap(nil)
	}
	spare.mu.Unlock()
	if held != nil {
		endSpare(held)
	}
	if !on {
		spare.wg.Wait() // a start under way ends its spare unparked
	}
}

// fresh reports whether a spare may still be given a plan: its mount table
// is this process's as it is now, and it is younger than spareMaxAge. A
// poll reports a change once: a spare found stale stays so. Anything but
// a poll that reports nothing (an error, POLLNVAL) is stale.
func (e *earlyHelper) fresh() bool {
	if e.stale || e.expired.Load() || e.mounts < 0 || !time.Now().Before(e.deadline) {
		e.stale = true
		return false
	}
	fds := []unix.PollFd{{Fd: int32(e.mounts), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	e.stale = err != nil || n != 0
	return !e.stale
}

// closeMounts closes what the owner of a spare holds of its watch (a
// taken or ended spare's): the mount table it polls, and the wake-up
// pipe's write end, which ends the watcher.
func (e *earlyHelper) closeMounts() {
	for _, fd := range []*int{&e.mounts, &e.wakeW} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

// watchMounts, a spare's watcher, waits on its own open of the mount
// table: a change (a filesystem the host unmounts stays in use while a
// copy of its mount exists) or spareMaxAge ends the spare if it is held,
// and marks it expired for a Run that holds it meanwhile; the spare taken
// or ended (its wake-up pipe closed) ends the watcher. It owns watch and
// the pipe's read end.
func (e *earlyHelper) watchMounts(watch, wakeR int) {
	defer unix.Close(watch)
	defer unix.Close(wakeR)
	deadline := e.deadline
	for {
		fds := []unix.PollFd{{Fd: int32(watch), Events: unix.POLLPRI}, {Fd: int32(wakeR), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(min(max(time.Until(deadline).Milliseconds()+1, 0), 1<<30)))
		if err == unix.EINTR {
			continue
		}
		if err == nil && fds[1].Revents != 0 {
			return // taken or ended
		}
		if err == nil && n == 0 && time.Now().Before(deadline) {
			continue
		}
		e.expired.Store(true)
		expireSpare(e)
		return
	}
}

// refillSpare starts a spare for commands like spec's (a restricted
// command's, in the namespaces, with no proxy), unless spares are off, one
// is held or one is starting.
func refillSpare(spec *SandboxSpec) {
	if !spec.InNamespace || spec.FullAccess || spec.ProxyPort > 0 {
		return
	}
	spare.mu.Lock()
	if !spare.on || spare.starting || earlyHelpers.Load() != nil {
		spare.mu.Unlock()
		return
	}
	spare.starting = true
	spare.wg.Add(1)
	watch, maxAge := spareWatch, spareMaxAge
	spare.mu.Unlock()
	attr := helperAttr(spec)
	go func() {
		defer spare.wg.Done()
		e := startParkedHelper("", attr)
		if e != nil {
			e.deadline = e.started.Add(maxAge)
			if watch {
				go e.watchMounts(e.watch, e.wakeR) // before it can be taken
			} else {
				unix.Close(e.watch)
				unix.Close(e.wakeR)
			}
		}
		spare.mu.Lock()
		spare.starting = false
		parked := e != nil && spare.on && earlyHelpers.CompareAndSwap(nil, e)
		spare.mu.Unlock()
		if e != nil && !parked {
			e.abandon()
		}
	}()
}

// keepSpare puts back a spare that did not fit a plan for a reason of that
// plan's (its input, its proxy, another mode's namespaces) while it is
// fresh, and ends it otherwise; the caller took it from the slot.
func keepSpare(e *earlyHelper) {
	spare.mu.Lock()
	kept := spare.on && e.fresh() && earlyHelpers.CompareAndSwap(nil, e)
	spare.mu.Unlock()
	if !kept {
		endSpare(e)
		return
	}
	// Its watcher may have found it stale while it was out of the slot:
	// whoever takes it out again ends it.
	if e.expired.Load() && earlyHelpers.CompareAndSwap(e, nil) {
		endSpare(e)
	}
}

// expireSpare ends e if it is still held, unused.
func expireSpare(e *earlyHelper) {
	if earlyHelpers.CompareAndSwap(e, nil) {
		endSpare(e)
	}
}

// endSpare ends a spare its caller owns, unused.
func endSpare(e *earlyHelper) {
	e.abandon()
	spare.mu.Lock()
	ended := spare.ended
	spare.mu.Unlock()
	if ended != nil {
		ended(e)
	}
}

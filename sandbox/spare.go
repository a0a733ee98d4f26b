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
// watched: the spare keeps this process's /proc/self/mountinfo open from
// before its start, and is not used once that reports a change (poll's
// POLLPRI: a mount, an unmount or a remount since the open), nor once
// spareMaxAge has passed, when it is ended; Run then starts a helper as
// it does without a spare. A spare ended so is started again after the
// next restricted command only, so an idle server holds none for long
// (and no filesystem the host unmounted: a copy of a mount keeps its
// filesystem in use).
//
// The spare changes when the helper's start is paid, not what it costs: a
// server that runs commands back to back pays it beside the command before
// (docs/benchmarks.md).

// spareMaxAge is how long a spare waits for a command before it is ended.
var spareMaxAge = 60 * time.Second

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
	spare.mu.Unlock()
	if on {
		return
	}
	spare.wg.Wait() // no start begins once off
	if e := earlyHelpers.Swap(nil); e != nil {
		endSpare(e)
	}
}

// fresh reports whether a spare may still be given a plan: its mount table
// is this process's as it is now, and it is younger than spareMaxAge. A
// poll reports a change once: a spare found stale stays so.
func (e *earlyHelper) fresh() bool {
	if e.stale || e.mounts < 0 || time.Since(e.started) >= spareMaxAge {
		e.stale = true
		return false
	}
	fds := []unix.PollFd{{Fd: int32(e.mounts), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	e.stale = err != nil || n != 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0
	return !e.stale
}

func (e *earlyHelper) closeMounts() {
	if e.mounts >= 0 {
		unix.Close(e.mounts)
		e.mounts = -1
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
	spare.mu.Unlock()
	attr := helperAttr(spec)
	go func() {
		defer spare.wg.Done()
		e := startParkedHelper("", attr)
		spare.mu.Lock()
		spare.starting = false
		parked := e != nil && spare.on && earlyHelpers.CompareAndSwap(nil, e)
		spare.mu.Unlock()
		if e == nil {
			return
		}
		if !parked {
			e.abandon()
			return
		}
		time.AfterFunc(spareMaxAge, func() { expireSpare(e) })
	}()
}

// keepSpare puts back a spare that did not fit a plan for a reason of that
// plan's (its input, its proxy, another mode's namespaces) while it is
// fresh, and ends it otherwise; the caller took it from the slot.
func keepSpare(e *earlyHelper) {
	if e.fresh() && earlyHelpers.CompareAndSwap(nil, e) {
		return
	}
	endSpare(e)
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

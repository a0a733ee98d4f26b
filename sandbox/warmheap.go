package sandbox

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// A helper's first touch of each page of its heap is a page fault, and on
// the development machine's virtual machine a fault costs about 25 µs:
// once a helper has its plan, decoding it, building its view and mounting
// it took about 260 fresh pages (docs/benchmarks.md), some 6 ms of a
// command's wait. A server's spare (spare.go), idle until the next
// command, pays for most of them first: warmHeap touches warmHeapBytes of
// new heap and frees it again, and the runtime hands those pages, resident
// now, to what the plan then allocates (its page allocator takes the
// lowest free pages, and the freed block lies right above those in use;
// its scavenger returns free pages to the system only above the heap's
// goal, 4 MiB at the least). It reads and changes nothing else: what the
// helper does with its plan is the same.
//
// Only a spare warms (its caller sets spareEnv): a helper started for its
// command has its plan at once, or within the caller's preparation, and
// the collection that frees the block would be on the command's path. A
// spare whose plan comes while it warms stops, and skips the collection.
const warmHeapBytes = 1 << 20

// spareEnv, in a helper's own environment (not the command's, which the
// plan carries), marks a spare.
const (
	spareEnvName = "TURNSTILE_SPARE_HELPER"
	spareEnv     = spareEnvName + "=1"
)

// isSpare reports whether this helper was started as a spare.
func isSpare() bool { return os.Getenv(spareEnvName) == "1" }

// warmHeap pre-faults the heap's next warmHeapBytes, stopping when the
// plan becomes readable on fd; it returns the pages touched.
func warmHeap(fd int) int {
	if planReady(fd) {
		return 0
	}
	page := os.Getpagesize()
	b := make([]byte, warmHeapBytes)
	touched := 0
	for i := 0; i < len(b); i += page {
		if touched%32 == 31 && planReady(fd) {
			// The command is waiting: no collection on its path (the
			// pages touched stay the block's).
			runtime.KeepAlive(b)
			return touched
		}
		b[i] = 1
		touched++
	}
	runtime.KeepAlive(b)
	b = nil
	// Frees the block, swept before GC returns, for what comes next.
	runtime.GC()
	return touched
}

// planReady reports whether the plan (or its end) is readable on fd.
func planReady(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		return err != nil || n != 0
	}
}

// Package gctune paces the garbage collector of `turnstile serve`.
//
// With the default GOGC (100) the collector runs whenever the heap has
// doubled what was live after the last cycle. A server that keeps a few
// megabytes live and allocates ~20 KB per decision is then collected tens
// of times a second, and on a machine whose cores it fills, each cycle's
// marking (a quarter of the cores, plus assists) is a stall every request
// in flight waits through: the tail of the decision latency.
//
// The Tuner raises GOGC while the live heap is small, so that the heap goal
// (live × (1 + GOGC/100)) sits at a soft ceiling, and lowers it as the live
// heap grows, never below the default: a live set past half the ceiling is
// collected as Go would collect it, and there is no memory limit for the
// collector to thrash against. It re-reads the live heap after every cycle.
// A user's own GOGC or GOMEMLIMIT turns it off.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Policy maps a live heap to a GOGC.
type Policy struct {
	// Ceiling is the heap goal, in bytes, aimed at while the live heap is
	// small enough for a GOGC within [Min, Max] to put it there.
	Ceiling uint64
	// Min and Max bound GOGC.
	Min, Max int
}

// Default is serve's policy: a heap goal of up to 128 MiB (the server's
// RSS target is 200 MB), GOGC between Go's default and 800.
var Default = Policy{Ceiling: 128 << 20, Min: 100, Max: 800}

// GOGC is the percent that makes the heap goal of a live heap of live bytes
// Ceiling, bounded by Min and Max.
func (p Policy) GOGC(live uint64) int {
	if live == 0 {
		return p.Max
	}
	if live >= p.Ceiling {
		return p.Min
	}
	g := (p.Ceiling - live) * 100 / live
	return int(min(max(g, uint64(p.Min)), uint64(p.Max)))
}

// UserSet reports whether the environment sets GOGC or GOMEMLIMIT (not
// empty): the user's choice, which the tuner leaves alone.
func UserSet(getenv func(string) string) bool {
	return getenv("GOGC") != "" || getenv("GOMEMLIMIT") != ""
}

// Tuner applies a Policy after every collection.
type Tuner struct {
	p       Policy
	mu      sync.Mutex
	stopped bool
	gogc    int
	prev    int // GOGC before Start, restored by Stop
	sample  [1]metrics.Sample
	// adjusted, when set (tests), is called after each adjustment.
	adjusted func(live uint64, gogc int)
}

// Start paces the collector by p, unless the process's environment sets
// GOGC or GOMEMLIMIT; then it returns nil and changes nothing.
func Start(p Policy) *Tuner {
	if UserSet(os.Getenv) {
		return nil
	}
	return start(p, nil)
}

func start(p Policy, adjusted func(uint64, int)) *Tuner {
	t := &Tuner{p: p, adjusted: adjusted}
	t.sample[0].Name = "/gc/heap/live:bytes"
	t.gogc = p.GOGC(t.live())
	t.prev = debug.SetGCPercent(t.gogc)
	t.arm()
	return t
}

// Stop stops adjusting and restores the GOGC in force before Start.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.prev)
	}
}

func (t *Tuner) live() uint64 {
	metrics.Read(t.sample[:])
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return t.sample[0].Value.Uint64()
}

// afterGC re-arms and sets GOGC for the live heap the cycle measured.
func (t *Tuner) afterGC() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.arm()
	live := t.live()
	g := t.p.GOGC(live)
	if g != t.gogc {
		debug.SetGCPercent(g)
		t.gogc = g
	}
	if t.adjusted != nil {
		t.adjusted(live, g)
	}
}

// sentinel is garbage as soon as it is allocated; its cleanup runs after
// the next collection. It holds a pointer so that it is not a tiny
// allocation (whose cleanups may never run).
type sentinel struct {
	_ *byte
	_ [8]byte
}

// arm has afterGC run once the next cycle has finished.
func (t *Tuner) arm() {
	runtime.AddCleanup(new(sentinel), (*Tuner).afterGC, t)
}

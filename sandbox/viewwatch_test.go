package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestWatchGenSeesEveryEarlierChange: while other goroutines call watchGen
// without pause (as concurrent decisions do, letting one drain serve many
// callers), a change made before a call is always in the generation that
// call returns. A caller that took the generation of a drain begun before
// it was called would miss some of these changes.
func TestWatchGenSeesEveryEarlierChange(t *testing.T) {
	dir := t.TempDir()
	if !watchLookups([]lookup{{dir: dir, name: "x"}}) {
		t.Skip("inotify is unavailable")
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				watchGen()
			}
		})
	}
	defer func() { stop.Store(true); wg.Wait() }()
	x := filepath.Join(dir, "x")
	for i := range 1000 {
		before, _, ok := watchGen()
		if !ok {
			t.Fatal("the watch was lost")
		}
		var err error
		if i%2 == 0 {
			err = os.Mkdir(x, 0o755)
		} else {
			err = os.Remove(x)
		}
		if err != nil {
			t.Fatal(err)
		}
		if after, _, _ := watchGen(); after == before {
			t.Fatalf("change %d (%s %s) is not in the generation read after it", i, map[bool]string{true: "mkdir", false: "rmdir"}[i%2 == 0], x)
		}
	}
	// The control: with nothing changed, the generation stands (in one of
	// ten tries at least: work that earlier tests left behind may still
	// touch a watched name).
	for range 10 {
		a, _, _ := watchGen()
		if b, _, _ := watchGen(); a == b {
			return
		}
	}
	t.Fatal("the generation moved on every call with nothing changed")
}

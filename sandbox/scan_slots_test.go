package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
)

// TestDecisionScansRunOneAtATime (fourteenth review's note): within its
// bounds a decision's scan for what a glob deny matches below a tree can
// cost 5–8 s of CPU, and scans made at once (concurrent grep_files calls,
// from one turn or several) took every core from the server's other
// work. They run one at a time now: the first scan waits inside its slot
// for up to 2 s for another to start beside it, and none does. Control:
// every scan is made and answers as one made alone would.
func TestDecisionScansRunOneAtATime(t *testing.T) {
	ws := tempWorkspace(t)
	for i := range 20 {
		if err := os.MkdirAll(filepath.Join(ws, "src", string(rune('a'+i)), "deep"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
	var mu sync.Mutex
	inside, entered, overlap := 0, 0, false
	second := make(chan struct{})
	scanEntered = func() {
		mu.Lock()
		inside++
		entered++
		first := entered == 1
		if inside > 1 && !overlap {
			overlap = true
			close(second)
		}
		mu.Unlock()
		if first {
			select {
			case <-second:
			case <-time.After(2 * time.Second): // a bound on what is not expected
			}
		}
		mu.Lock()
		inside--
		mu.Unlock()
	}
	defer func() { scanEntered = nil }()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = CheckTree(&s, filepath.Join(ws, "src"))
		}()
	}
	wg.Wait()
	if overlap {
		t.Fatal("two decision scans ran at once")
	}
	if entered != 3 {
		t.Fatalf("%d scans were made, want 3", entered)
	}
	for _, err := range errs {
		if err != nil {
			t.Fatalf("control: a tree with nothing denied below was refused: %v", err)
		}
	}
}

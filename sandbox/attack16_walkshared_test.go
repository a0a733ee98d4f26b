package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAttack16DiscoveryWalksShared: the discovery of git dirs below a
// writable root is bounded per walk (4,096 directories, 1 << 20 units of
// names), and a walk is reused for walkTTL, but every caller that found
// it expired walked the root itself: after any change below the root,
// each decision of each turn there rebuilt its view at once, and each
// walked. The agent kept 130,000 names of 247 bytes in one directory of
// its workspace (one walk: 70 MB and 1.5 s, within the bounds) and asked
// for 32 decisions at once after touching a file: 2.3 GB of the server's
// memory and 33 s of its CPU on the review machine, ten times that for
// 320, enough to have the server killed, after which an http hook lets
// every call run. A caller now waits for the walk of the root under way.
// Here eight callers find the cache empty at once, each with a walk of
// its own that counts how many run and whose first waits (for up to 2 s)
// for the others to join it; one walk runs. The control: all eight get
// the walk's findings (the nested .git below the wide directory).
func TestAttack16DiscoveryWalksShared(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"wide/": "", "seed": "", "sub/.git/HEAD": "ref: refs/heads/main\n"})
	name := strings.Repeat("x", 240)
	for i := 0; i < 5000; i++ {
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(ws, "wide", fmt.Sprintf("%s%07d", name, i))))
	}
	walkCache.mu.Lock()
	delete(walkCache.m, ws)
	walkCache.mu.Unlock()
	const callers = 8
	var mu sync.Mutex
	walks := 0
	all := make(chan struct{})
	walk := func(root string) walkResult {
		mu.Lock()
		walks++
		n := walks
		if n == callers {
			close(all)
		}
		mu.Unlock()
		if n == 1 {
			select {
			case <-all:
			case <-time.After(2 * time.Second): // a bound on what is not expected
			}
		}
		return walkRoot(root)
	}
	start := make(chan struct{})
	results := make([]walkResult, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = walkCache.get(ws, walk)
		}()
	}
	close(start)
	wg.Wait()
	if walks != 1 {
		t.Errorf("%d callers that found the walk of %s expired at once walked it %d times", callers, ws, walks)
	}
	// control
	for i, r := range results {
		if len(r.found) != 1 || r.found[0] != filepath.Join(ws, "sub", ".git") {
			t.Errorf("control: caller %d got the walk's findings %v", i, r.found)
		}
	}
}
